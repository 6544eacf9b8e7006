// The Hopper pieces the GEMM kernel is made of that CCCL does not wrap: shared-memory loads and stores, matrix
// descriptors, the wgmma batch fences, register reallocation between warpgroups, and named barriers for one
// warpgroup.
#pragma once
#include <cuda/std/cstdint>

namespace tilewise::kernels::sm90 {

// The host fills it with cuTensorMapEncodeTiled; the kernel only passes its address to TMA.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

__device__ __forceinline__ void prefetch_tensormap(const TensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// The box of a 2-D tensor map at (c0, c1), fetched into L2 only (cp.async.bulk.prefetch.tensor; CCCL wraps no form
// of it): no shared memory, no barrier, nothing to wait for.
__device__ __forceinline__ void prefetch_box_l2(const TensorMap* map, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\n" ::"l"(reinterpret_cast<uint64_t>(map)),
               "r"(c0), "r"(c1)
               : "memory");
}

// The epilogue's staging through ld.shared and st.shared. The ring is aligned to 1024 bytes through an integer
// (sm90_gemm.cuh), which leaves the compiler a generic pointer: plain dereferences of it compile to generic LD.E and
// ST.E, which resolve their window at run time, where LDS and STS take the shared path (2% faster on the small
// squares). Volatile, and the stores clobber memory: they stay where the barriers, waits and proxy fences around them
// put them. The packed consumers' fragment loads stay plain dereferences: through ld.shared they ran 1.4% slower
// (docs/notes/2026-12-04-packed-shared-loads.md).
__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint4 load_shared_16_bytes(const void* p) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(shared_address(p)));
  return v;
}
__device__ __forceinline__ void store_shared_4_bytes(void* p, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(shared_address(p)), "r"(v) : "memory");
}

// A 128B-swizzled operand tile in shared memory, as wgmma reads it (PTX ISA, matrix descriptor format). The tile
// must start on a 1024-byte boundary; advancing the start address by 32 bytes steps 16 bf16 (32 fp8) along K
// inside the swizzle atom.
__device__ __forceinline__ uint64_t smem_descriptor(const void* tile, uint32_t leading_bytes, uint32_t stride_bytes) {
  const uint32_t addr = shared_address(tile);
  uint64_t desc = 0;
  desc |= uint64_t((addr & 0x3FFFF) >> 4);
  desc |= uint64_t((leading_bytes & 0x3FFFF) >> 4) << 16;
  desc |= uint64_t((stride_bytes & 0x3FFFF) >> 4) << 32;
  desc |= uint64_t(1) << 62;  // 128-byte swizzle
  return desc;
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int InFlight>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(InFlight) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across an asynchronous wgmma.
__device__ __forceinline__ void fence_registers(float* d, int count) {
#pragma unroll
  for (int i = 0; i < count; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

template <int Registers>
__device__ __forceinline__ void release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ __forceinline__ void claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

// A barrier for the 128 threads of one warpgroup (id 0 is __syncthreads).
__device__ __forceinline__ void warpgroup_sync(int id) { asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory"); }

// Clusters: every thread of every CTA in the cluster arrives, then waits (release/acquire across the cluster).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}
// Arrives on the mbarrier at the same shared-memory offset in CTA `rank` of the cluster.
__device__ __forceinline__ void arrive_in_cta(const uint64_t* barrier, uint32_t rank) {
  const uint32_t local = shared_address(barrier);
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(local),
      "r"(rank)
      : "memory");
}

}  // namespace tilewise::kernels::sm90
