#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void fused0_p0_s(
    __global const double* out, __global double* out_next,
    const int L, const int N,
    const int lo0_0_k, const int hi0_0_k, const int lo0_0_i, const int hi0_0_i,
    const int lo0_1_k, const int hi0_1_k, const int lo0_1_i, const int hi0_1_i,
    const int lo1_0_k, const int hi1_0_k, const int lo1_0_i, const int hi1_0_i,
    const int lo1_1_k, const int hi1_1_k, const int lo1_1_i, const int hi1_1_i,
    __global int* st) {
  __local double a[4];
  __local double b[4];
  __local double c[4];
  const int t = (int)get_local_id(0);
  const int lo = (int)get_group_id(1) * 16;
  for (int q = lo; q < L; ++q) {
    if (t < N) a[t] = out[q * N + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    if ((t == 0) && (q >= lo - 1) && (q >= 0)) b[0] = a[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (q >= lo) c[t] = 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < N) out_next[q * N + t] = (t < N - 1) ? c[0] : b[t];
  }
}
