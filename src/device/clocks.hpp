#pragma once
// NVML, loaded at run time (so the build needs neither the GPU driver nor nvml.h), and a sampler thread that
// reads SM and memory clocks, power, temperature and clock-event reasons while the benchmark runs.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "receipt/receipt.hpp"

namespace tilewise::device {

class Nvml {
 public:
  // Opens libnvidia-ml and the device on the given PCI bus; `available()` says whether that worked and
  // `why_unavailable()` why not.
  explicit Nvml(const std::string& pci_bus_id);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& why_unavailable() const { return why_; }

  receipt::ClockSample sample(double t_s) const;
  std::string driver_version() const;
  int max_sm_clock_mhz() const;
  int max_mem_clock_mhz() const;
  double power_limit_w() const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  void* library_ = nullptr;
  void* device_ = nullptr;
  std::string why_;
};

class ClockSampler {
 public:
  ClockSampler(const Nvml& nvml, std::chrono::milliseconds period);
  ~ClockSampler();

  double now() const;  // seconds since the sampler started
  receipt::ClockSample sample_now() const;
  // Takes a sample now and keeps it with the periodic ones, so a timed region shorter than the period still has
  // samples at its edges; returns its time.
  double mark();
  // Samples taken inside any of the [begin, end] intervals (seconds, as from now()).
  std::vector<receipt::ClockSample> samples_within(const std::vector<std::pair<double, double>>& intervals) const;

 private:
  void loop();
  const Nvml& nvml_;
  std::chrono::milliseconds period_;
  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mutex_;
  std::vector<receipt::ClockSample> samples_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tilewise::device
