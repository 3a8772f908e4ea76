#!/usr/bin/env bash
# Boots Debian's kernel under QEMU (q35, emulated Intel IOMMU, QEMU's `edu` PCI device),
# binds edu to vfio-pci in the guest and runs a probe binary (vfio_edu_probe) against it,
# as root and as an unprivileged user (see guest_init.sh).
#
#   edu_vm.sh WORKDIR PROBE
#
# The initramfs is built here from the host's own files: busybox-static, the probe and
# the shared libraries ldd lists for it, and the VFIO modules (with their dependencies
# from modules.dep) of the installed linux-image package. Nothing is downloaded.
# The guest's serial console goes to stdout; the guest init prints
# "FASTHSL-GUEST-EXIT <rc>" after the probe and powers off.
#
# Environment: KVER (kernel version, default: newest /lib/modules entry with vfio-pci),
# QEMU_ACCEL (default tcg: the proof must not depend on /dev/kvm; `kvm` hung at boot on the
# nested-virtualisation build machine), QEMU_TIMEOUT seconds (default 300; qemu is killed
# after it).
set -euo pipefail

work=${1:?usage: edu_vm.sh WORKDIR PROBE}
probe=${2:?usage: edu_vm.sh WORKDIR PROBE}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "edu_vm.sh: $*" >&2; exit 2; }

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: apt-get install qemu-system-x86 (or: make test-vfio)"
command -v cpio >/dev/null || die "cpio missing: apt-get install cpio"
busybox=$(command -v busybox || true)
case $( [ -n "$busybox" ] && LC_ALL=C ldd "$busybox" 2>&1 || true) in
  *"not a dynamic executable"*) ;;
  *) die "a static busybox is needed for the guest init: apt-get install busybox-static" ;;
esac

if [ -z "${KVER:-}" ]; then
  for d in $(ls -1d /lib/modules/* 2>/dev/null | sort -rV); do
    if [ -f "$d/modules.dep" ] && grep -q "/vfio-pci.ko" "$d/modules.dep" && [ -f "/boot/vmlinuz-$(basename "$d")" ]; then
      KVER=$(basename "$d"); break
    fi
  done
fi
[ -n "${KVER:-}" ] || die "no guest kernel with vfio-pci under /lib/modules and /boot: apt-get install linux-image-amd64"
kernel=/boot/vmlinuz-$KVER
moddir=/lib/modules/$KVER
[ -r "$kernel" ] || die "$kernel is not readable"

root=$work/root
rm -rf "$root"
mkdir -p "$root"/{bin,lib/modules,proc,sys,dev,tmp}
cp "$busybox" "$root/bin/busybox"
cp "$here/guest_init.sh" "$root/init"
chmod 755 "$root/init"

# The probe and its shared libraries, at the same paths as on the host.
cp "$probe" "$root/bin/probe"
for lib in $(ldd "$probe" | grep -o '/[^ ]*' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done

# The modules vfio-pci and vfio_iommu_type1 need, in load order (dependencies first).
declare -A seen=()
order=()
add_mod() {
  local rel=$1 line deps d
  [ -n "${seen[$rel]:-}" ] && return
  seen[$rel]=1
  line=$(grep -m1 "^$rel:" "$moddir/modules.dep") || die "$rel not in $moddir/modules.dep"
  deps=${line#*:}
  for d in $deps; do add_mod "$d"; done
  order+=("$rel")
}
for want in vfio_iommu_type1 vfio-pci; do
  rel=$(grep -o "^[^:]*/$want\.ko[^:]*" "$moddir/modules.dep" | head -1)
  [ -n "$rel" ] || die "module $want not found in $moddir"
  add_mod "$rel"
done
: > "$root/lib/modules/load_order"
for rel in "${order[@]}"; do
  name=$(basename "$rel"); src=$moddir/$rel
  # The guest kernel may lack in-kernel decompression: ship plain .ko files.
  case $rel in
    *.ko.xz)  xz -dc "$src" > "$root/lib/modules/${name%.xz}"; name=${name%.xz} ;;
    *.ko.zst) zstd -qdc "$src" > "$root/lib/modules/${name%.zst}"; name=${name%.zst} ;;
    *.ko.gz)  gzip -dc "$src" > "$root/lib/modules/${name%.gz}"; name=${name%.gz} ;;
    *)        cp "$src" "$root/lib/modules/$name" ;;
  esac
  echo "$name" >> "$root/lib/modules/load_order"
done

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$work/initramfs.gz"

accel=${QEMU_ACCEL:-tcg}
machine=q35
# With KVM the interrupt remapping of intel-iommu needs QEMU's userspace IOAPIC.
[ "$accel" = kvm ] && machine=q35,kernel-irqchip=split
echo "edu_vm.sh: kernel $KVER, accel $accel, modules: $(tr '\n' ' ' < "$root/lib/modules/load_order")" >&2

exec timeout --kill-after=5 "${QEMU_TIMEOUT:-300}" qemu-system-x86_64 \
  -machine "$machine" -accel "$accel" -cpu max -smp 1 -m 512 \
  -device intel-iommu,intremap=on \
  -device pcie-root-port,id=rp0,bus=pcie.0,chassis=1,slot=1 \
  -device edu,bus=rp0 \
  -kernel "$kernel" -initrd "$work/initramfs.gz" \
  -append "console=ttyS0 intel_iommu=on panic=-1 loglevel=4 hugepages=8" \
  -nographic -no-reboot -monitor none -serial stdio -nodefaults
