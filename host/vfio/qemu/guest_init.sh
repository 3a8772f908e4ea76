#!/bin/busybox sh
# Guest /init for edu_vm.sh: load VFIO, hand QEMU's edu device (1234:11e8) to vfio-pci,
# run /bin/probe (vfio_edu_probe) as root and as a user, report the exit code, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

finish() {
  echo "FASTHSL-GUEST-EXIT $1"
  sync
  poweroff -f
}

for m in $(cat /lib/modules/load_order); do
  insmod "/lib/modules/$m" || { echo "guest: insmod $m failed"; finish 90; }
done

addr=
for d in /sys/bus/pci/devices/*; do
  if [ "$(cat "$d/vendor")" = 0x1234 ] && [ "$(cat "$d/device")" = 0x11e8 ]; then
    addr=$(basename "$d")
  fi
done
[ -n "$addr" ] || { echo "guest: no edu device (1234:11e8) on the PCI bus"; finish 91; }
dev=/sys/bus/pci/devices/$addr
[ -e "$dev/iommu_group" ] || { echo "guest: $addr has no IOMMU group (IOMMU off?)"; finish 92; }
[ -e "$dev/driver" ] && echo "$addr" > "$dev/driver/unbind"
echo vfio-pci > "$dev/driver_override"
echo "$addr" > /sys/bus/pci/drivers_probe
echo "guest: $addr in IOMMU group $(basename "$(readlink "$dev/iommu_group")"), driver $(basename "$(readlink "$dev/driver")")"
echo "guest: hugepages $(cat /proc/sys/vm/nr_hugepages)"

group=$(basename "$(readlink "$dev/iommu_group")")
/bin/probe "$addr" || finish $?

# As a user: denied while the group node is root's, then allowed after a chown, with a
# small locked-memory limit (the set-up docs/HARDWARE.md describes).
/bin/probe --as-user 65534 --expect-denied "$addr" || finish $?
chown 65534:65534 "/dev/vfio/$group"
(ulimit -l 64 && exec /bin/probe --as-user 65534 "$addr") || finish $?
finish 0
