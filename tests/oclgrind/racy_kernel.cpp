// A deliberately racy OpenCL program, so that the Oclgrind check (tests/e2e/test_oclgrind.cpp)
// proves it can fail: each work-item writes its slot of a local array and reads its
// neighbour's with no barrier between, the race a missing barrier in a staged kernel makes.
// Without Oclgrind it runs and exits 0 (on PoCL the race goes unseen).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <vector>

namespace {

const char* kSource = R"(
__kernel void racy(__global float* out) {
  __local float ring[64];
  const int l = get_local_id(0);
  ring[l] = (float)l;
  // Missing: barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = ring[(l + 1) % 64];
}
)";

bool check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) std::fprintf(stderr, "racy_kernel: %s failed (%d)\n", what, err);
  return err == CL_SUCCESS;
}

}  // namespace

int main() {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err = clGetPlatformIDs(1, &platform, nullptr);
  if (!check(err, "clGetPlatformIDs")) return 1;
  err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
  if (!check(err, "clGetDeviceIDs")) return 1;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (!check(err, "clCreateContext")) return 1;
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  if (!check(err, "clCreateCommandQueue")) return 1;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  if (!check(err, "clCreateProgramWithSource")) return 1;
  if (!check(clBuildProgram(prog, 1, &device, "", nullptr, nullptr), "clBuildProgram")) return 1;
  cl_kernel k = clCreateKernel(prog, "racy", &err);
  if (!check(err, "clCreateKernel")) return 1;
  const size_t n = 128, local = 64;
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * sizeof(float), nullptr, &err);
  if (!check(err, "clCreateBuffer")) return 1;
  if (!check(clSetKernelArg(k, 0, sizeof(out), &out), "clSetKernelArg")) return 1;
  err = clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &local, 0, nullptr, nullptr);
  if (!check(err, "clEnqueueNDRangeKernel")) return 1;
  std::vector<float> host(n);
  err =
      clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr);
  if (!check(err, "clEnqueueReadBuffer")) return 1;
  clReleaseMemObject(out);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  std::printf("racy_kernel: ran %zu work-items\n", n);
  return 0;
}
