#pragma once
// What the receipt says about the machine: the GPU and its limits, driver and library versions, and the HBM read
// bandwidth measured in the same run.
#include <string>

#include "device/clocks.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::device {

// Library versions only; works without a GPU.
receipt::Machine library_versions();
// Everything, for the current device.
receipt::Machine describe_machine(const Nvml& nvml);
std::string pci_bus_id(int device);

// Reads a `bytes` buffer `passes` times (after one untimed pass) with 16-byte loads.
receipt::ReadBandwidth measure_read_bandwidth(int64_t bytes, int passes, int sm_count);

}  // namespace tilewise::device
