#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CK(x) do { cl_int e_ = (x); if (e_) { fprintf(stderr, "%s failed %d\n", #x, e_); exit(1);} } while (0)
int main(int argc, char** argv) {
  const char* file = argc > 1 ? argv[1] : "k.cl";
  const char* opts = argc > 2 ? argv[2] : "-cl-std=CL1.2";
  FILE* f = fopen(file, "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
  char* src = malloc(n + 1); fread(src, 1, n, f); src[n] = 0; fclose(f);
  cl_platform_id p; cl_device_id d; cl_int err;
  CK(clGetPlatformIDs(1, &p, NULL)); CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err); CK(err);
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &err); CK(err);
  cl_program pr = clCreateProgramWithSource(c, 1, (const char**)&src, NULL, &err); CK(err);
  err = clBuildProgram(pr, 1, &d, opts, NULL, NULL);
  if (err) { char log[65536]; clGetProgramBuildInfo(pr, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL); fprintf(stderr, "%s\n", log); return 1; }
  cl_kernel k = clCreateKernel(pr, "fused0_p0_s", &err); CK(err);
  double in[1] = {0.75}, outv[1] = {-1};
  cl_mem bin = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err); CK(err);
  cl_mem bout = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof outv, outv, &err); CK(err);
  cl_mem bst = clCreateBuffer(c, CL_MEM_READ_WRITE, 4, NULL, &err); CK(err);
  int L = 1, N = 1;
  int a[] = {L, N, 1, L - 1, 0, N - 1, 1, L - 1, 0, N - 2, 1, L - 1, 0, N - 1, 1, L - 1, 0, N - 2};
  int na = sizeof a / sizeof a[0];
  CK(clSetKernelArg(k, 0, sizeof(cl_mem), &bin)); CK(clSetKernelArg(k, 1, sizeof(cl_mem), &bout));
  for (int i = 0; i < na; ++i) CK(clSetKernelArg(k, 2 + i, sizeof(int), &a[i]));
  CK(clSetKernelArg(k, 2 + na, sizeof(cl_mem), &bst));
  size_t g[2] = {4, 1}, l[2] = {4, 1};
  CK(clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, 0, NULL, NULL));
  CK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof outv, outv, 0, NULL, NULL));
  printf("out_next[0] = %g (expected 0.75) %s\n", outv[0], outv[0] == 0.75 ? "PASS" : "FAIL");
  return outv[0] == 0.75 ? 0 : 3;
}
