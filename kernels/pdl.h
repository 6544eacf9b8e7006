// Programmatic dependent launch: a grid launched with the attribute (jit::LoadedKernel::launch, programmatic) may
// start while the grid before it in the stream is still running, which hides its launch and prologue behind that
// grid's tail. A CTA lets the next grid launch with launch_dependents (the next grid launches only when every CTA of
// this one has started or finished, so it never takes a slot this grid still needs), and waits for the grid before
// with wait_for_prerequisites before it reads anything that grid may write or writes anything it may read. Launched
// without the attribute, both return at once.
#pragma once

namespace tilewise::kernels {

__device__ __forceinline__ void launch_dependents() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
__device__ __forceinline__ void wait_for_prerequisites() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

}  // namespace tilewise::kernels
