// Programs that exercise every feature of the language on the GPU backends (types, math, locals,
// scratch copies, planes, iterate, run-time errors), shared by the OpenCL and CUDA tests.
#pragma once

namespace tessel::gputest {

inline const char* const kTypes = R"(
parameter M=13, N=37;
iterator j, i;
float x[M,N], y[M,N];
double d[M,N], e[M,N], coef[N];
int m[M,N], n2[M,N];
bool b[M,N];
float s;
int q;
copyin x, d, m, b, coef, s, q;
stencil types () {
  double t;
  int r;
  float w = s * 2.5f;
  int big = q * 1000000 * 1000;
  t = d[j][i] * 0.1 + x[j][i+1];
  r = m[j][i] * 3 + q + big;
  y[j][i] = x[j][i] * w + x[j][i-1] / 3.0f - t + 1.0 / 3.0;
  e[j][i] = sqrt(d[j][i]) + exp(x[j][i]) + pow(d[j][i], 1.5) + abs(m[j][i] - 5)
          + min(x[j][i], d[j][i]) + max(m[j][i], r) + fabs(-d[j][i]) + log(d[j][i] + 1)
          + sin(x[j][i]) + floor(d[j][i]*7) + ceil(x[j][i]*3) + sqrt(m[j][i]) + tanh(x[j][i]);
  n2[j][i] = m[j][i] ^ 3 + m[j][i] % 4 + m[j][i] / 3 + r / (m[j][i] + 1) - (m[j][i] & 6)
           + (m[j][i] | 1) + select(b[j][i], 7, -7) + (m[j][i] - 5) % 3 + (0 - m[j][i]) / 2;
  [1:M-2, 2:N-3] : e[j][i] += t ^ 2.0 + d[j][i] % 0.3 + select(b[j][i] & (m[j][i] > 4), 1.0, 0.5)
                   + coef[i] * i + j - m[j][i] * 2.5f;
  b[j][i] = (m[j][i] > 3) | b[j][i];
  y[j][i] *= 1.1;
  m[j][i] = r * 1000000 * 1000;
}
types ();
)";

inline const char* const kLocals = R"(
parameter K=5, N=40, T;
iterator k, i;
double u[K,N], v[K,N], w[K,N], out2[K,N], strx[N];
float f[K,N];
bool flag;
copyin u, v, strx, f, flag;
stencil chain (inout:v, u) {
  double tmp[K,N];
  double r;
  tmp[k][i] = u[k][i-1] + u[k][i+1];
  r = tmp[k][i+1] * strx[i-2];
  u[k][i] = tmp[k][i] * 2.0;
  v[k][i] = r + tmp[k][1] + select(flag, 1.0, 2.0);
}
stencil plane () {
  w[k][i] = u[0][i] + u[k][i];
  out2[k][i] = w[k][3] + w[k][i];
  f[k][i] += out2[k][i] * 0.5f;
}
iterate 1:T {
  [1:K-2, 0:N-1] : chain (v, u);
  iterate 2:1 { plane (); }
  iterate 0:1 { plane (); }
}
)";

/// Integer run-time errors: division, power, remainder in kernels.
inline const char* const kIntErrors = R"(
parameter N=12;
iterator i;
int q[N], r[N], a[N];
int d, e;
copyin a, d, e;
stencil s (q, r, a) {
  q[i] = a[i] / d + a[i] ^ e;
  r[i] = 100 % a[i];
}
s (q, r, a);
)";

/// An initialised local that divides: evaluated by the host.
inline const char* const kHostError = R"(
parameter N=6;
iterator i;
int a[N];
int d;
copyin d;
stencil s (a) { int c = 7 / d; a[i] = c; }
s (a);
)";

/// No statement ever runs (its region is empty whatever the parameters): no kernel at all.
inline const char* const kNoKernels = R"(
parameter N=6;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (b, a) { b[i] = a[i+1]; }
[0:0] : s (b, a);
)";

// Conversions and overloads that the C spellings get wrong (found by the semantics review of
// 2026-11-30): floating values outside the int range, NaN and infinities stored to ints (the
// reference truncates and wraps modulo 2^32, NaN and infinities give 0; a C cast is undefined
// there), a floating `select` condition (OpenCL C takes none), and integer min/max mixing 64-bit
// iterators with 32-bit values (OpenCL's overloads are ambiguous).
inline const char* const kConversions = R"(
parameter N=11;
iterator i;
double x[N], c[N];
float fx[N];
int r[N], rf[N], rh[N], mm[N];
int n;
copyin x, fx, n;
copyout c, r, rf, rh, mm;
stencil conv () {
  double big;
  double nn = 0.0 / 0.0;
  big = 3000000000.0 * (i - 5) + x[i];
  r[i] = select(i == 3, nn, select(i == 4, -1.0 / 0.0, big * 1000000.0 + 0.5));
  rf[i] = fx[i] * 3.0e9f + i * 1.0e19f;
  rh[i] = x[i] * 1.0e30 + big * 1.0e12;
  c[i] = select(x[i] - 0.5, 1.0, 2.0) + select(big, 3.0, 4.0) + select(nn, 10.0, 20.0);
  mm[i] = min(i, 3) + max(n, 2) * 10 + min(abs(i - 5), -3) + max(i, n) + min(min(i, 2), max(n, 1));
}
conv ();
)";

}  // namespace tessel::gputest
