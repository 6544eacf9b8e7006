#pragma once
// What compare_to_reference accumulates; plain data shared by the kernel and the host.
namespace tilewise::kernels {

struct ErrorSums {
  double diff_sq, ref_sq;
  unsigned max_abs_bits;  // bits of a non-negative float, which order like the float
  unsigned long long non_finite;
};

}  // namespace tilewise::kernels
