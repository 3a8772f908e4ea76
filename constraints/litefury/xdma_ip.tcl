# Creates the PCIe bridge IP for litefury_fasthsl_top: Xilinx XDMA ("DMA/Bridge Subsystem
# for PCI Express", PG195) in AXI Bridge mode, component name xdma_fasthsl.
# Sourced by build.tcl with $root (repository) and $ipdir (output folder) set.
#
# The PCI vendor/device id, the BAR0 size and the MSI vector count are read from
# host/contract/contract.toml here, at build time, so the card enumerates with exactly
# what the driver (`fasthsl list`, fasthsl_contract::{PCI_VENDOR_ID, PCI_DEVICE_ID,
# BAR0_SIZE, MSI_VECTORS}) looks for.

source [file join $root constraints litefury contract.tcl]

set contract [file join $root host contract contract.toml]
set vendor_id   [fasthsl_contract_value $contract PCI_VENDOR_ID]
set device_id   [fasthsl_contract_value $contract PCI_DEVICE_ID]
set bar0_size   [fasthsl_contract_value $contract BAR0_SIZE]
set msi_vectors [fasthsl_contract_value $contract MSI_VECTORS]

# XDMA takes BAR sizes in KiB/MiB and MSI vector counts from a fixed list
if {$bar0_size < 4096 || ($bar0_size & ($bar0_size - 1)) != 0 || $bar0_size > (1 << 20)} {
  error "BAR0_SIZE $bar0_size: need a power of two in 4 KiB..1 MiB"
}
set bar0_kib [expr {$bar0_size / 1024}]
if {[lsearch -exact {1 2 4 8 16 32} $msi_vectors] < 0} {
  error "MSI_VECTORS $msi_vectors: XDMA offers 1, 2, 4, 8, 16 or 32"
}
set msi_cap [expr {$msi_vectors == 1 ? "1_vector" : "${msi_vectors}_vectors"}]
set vendor_hex [format %04X $vendor_id]
set device_hex [format %04X $device_id]
puts "xdma_ip: PCI $vendor_hex:$device_hex, BAR0 $bar0_kib KiB, MSI $msi_cap (from $contract)"

file mkdir $ipdir
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_fasthsl -dir $ipdir
set_property -dict [list \
  CONFIG.functional_mode            {AXI_Bridge} \
  CONFIG.mode_selection             {Advanced} \
  CONFIG.device_port_type           {PCI_Express_Endpoint_device} \
  CONFIG.pcie_blk_locn              {X0Y0} \
  CONFIG.pl_link_cap_max_link_width {X4} \
  CONFIG.pl_link_cap_max_link_speed {2.5_GT/s} \
  CONFIG.ref_clk_freq               {100_MHz} \
  CONFIG.axi_data_width             {64_bit} \
  CONFIG.axisten_freq               {125} \
  CONFIG.axi_addr_width             {64} \
  CONFIG.axi_id_width               {4} \
  CONFIG.vendor_id                  $vendor_hex \
  CONFIG.pf0_device_id              $device_hex \
  CONFIG.pf0_subsystem_vendor_id    $vendor_hex \
  CONFIG.pf0_subsystem_id           $device_hex \
  CONFIG.pf0_base_class_menu        {Network_controller} \
  CONFIG.pf0_sub_class_interface_menu {Other_network_controller} \
  CONFIG.pf0_bar0_enabled           {true} \
  CONFIG.pf0_bar0_64bit             {false} \
  CONFIG.pf0_bar0_prefetchable      {false} \
  CONFIG.pf0_bar0_scale             {Kilobytes} \
  CONFIG.pf0_bar0_size              $bar0_kib \
  CONFIG.pciebar2axibar_0           {0x0000000000000000} \
  CONFIG.pf0_bar1_enabled           {false} \
  CONFIG.pf0_bar2_enabled           {false} \
  CONFIG.en_axi_slave_if            {true} \
  CONFIG.en_axi_master_if           {true} \
  CONFIG.axibar_num                 {1} \
  CONFIG.axibar_0                   {0x0000000000000000} \
  CONFIG.axibar_highaddr_0          {0xFFFFFFFFFFFFFFFF} \
  CONFIG.axibar2pciebar_0           {0x0000000000000000} \
  CONFIG.pf0_interrupt_pin          {NONE} \
  CONFIG.pf0_msi_enabled            {true} \
  CONFIG.pf0_msi_cap_multimsgcap    $msi_cap \
  CONFIG.pf0_msix_enabled           {false} \
  CONFIG.msi_rx_pin_en              {false} \
  CONFIG.xdma_axilite_slave         {false} \
] [get_ips xdma_fasthsl]
generate_target {synthesis instantiation_template} [get_ips xdma_fasthsl]
