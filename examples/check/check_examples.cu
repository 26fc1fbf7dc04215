// check_examples.cu - runs every example kernel through its host launcher on
// the GPU and compares the result with a CPU reference computed in double
// precision from the same (rounded) inputs. Also runs every configuration of
// the hand-written silu_and_mul template, and the planted faults.
//
//   check_examples all [SEED] correctness of every example, template and the
//                             faults that leave the context usable (exit 0
//                             when everything behaves as expected)
//   check_examples time-template  times every configuration of the
//                             hand-written template at two shapes
//   check_examples fault N    one planted fault alone (4: illegal address,
//                             5: hang; the caller wraps 5 in a timeout)
//
// Every case draws fresh random inputs (the seed is printed) and runs twice,
// with outputs poisoned by two different byte patterns, so an element the
// kernel never writes cannot match the reference both times.

#include "../handwritten/planted_faults.tpl.cu"
#include "../handwritten/silu_and_mul.tpl.cu"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace ops {
enum class ScalarType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };
enum class QuantType : int { kInt8 = 0, kFloat8E4M3 = 1 };

void launch_silu_and_mul(void *out, const void *input, int num_tokens,
                         int input_dim, ScalarType dtype, cudaStream_t stream);
void launch_fused_add_rmsnorm(void *input, void *residual, const void *weight,
                              int num_tokens, int hidden, float eps,
                              ScalarType dtype, cudaStream_t stream);
void launch_merge_attn_states_lse(void *v_merged, float *s_merged,
                                  const void *v_a, const float *s_a,
                                  const void *v_b, const float *s_b,
                                  int num_tokens, int num_heads, int head_dim,
                                  ScalarType dtype, cudaStream_t stream);
void launch_rotary_embedding(const int64_t *positions, void *query, void *key,
                             const void *cos_sin_cache, int num_tokens,
                             int rot_dim, int64_t query_stride,
                             int64_t key_stride, int num_heads,
                             int num_kv_heads, int head_size, ScalarType dtype,
                             cudaStream_t stream);
void launch_per_token_group_quant_8bit(const void *input, void *output_q,
                                       float *output_s, int num_tokens,
                                       int hidden, int group_size, float eps,
                                       ScalarType in_type, QuantType out_type,
                                       cudaStream_t stream);
void launch_row_softmax(void *out, const void *in, int rows, int cols,
                        ScalarType dtype, cudaStream_t stream);
void launch_tiled_transpose(float *out, const float *in, int rows, int cols,
                            cudaStream_t stream);
void launch_block_reduce(const float *in, float *out, float *block_sums,
                         unsigned int *retire_count, int64_t n,
                         cudaStream_t stream);
} // namespace ops

namespace {

using ops::ScalarType;

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    cudaError_t err_ = (expr);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,       \
                   cudaGetErrorString(err_));                                  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

std::mt19937_64 rng;
int failures = 0;
int cases = 0;

const uint8_t kPoisons[2] = {0xFF, 0x5A};

size_t elementSize(ScalarType t) { return t == ScalarType::kFloat32 ? 4 : 2; }
const char *typeName(ScalarType t) {
  switch (t) {
  case ScalarType::kFloat32:
    return "fp32";
  case ScalarType::kFloat16:
    return "fp16";
  case ScalarType::kBFloat16:
    return "bf16";
  }
  return "?";
}

/// Host bytes <-> float values of one element type.
std::vector<uint8_t> encode(const std::vector<float> &v, ScalarType t) {
  std::vector<uint8_t> out(v.size() * elementSize(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == ScalarType::kFloat32) {
      std::memcpy(&out[i * 4], &v[i], 4);
    } else if (t == ScalarType::kFloat16) {
      __half h = __float2half_rn(v[i]);
      std::memcpy(&out[i * 2], &h, 2);
    } else {
      __nv_bfloat16 b = __float2bfloat16_rn(v[i]);
      std::memcpy(&out[i * 2], &b, 2);
    }
  }
  return out;
}

std::vector<float> decode(const std::vector<uint8_t> &bytes, ScalarType t) {
  std::vector<float> out(bytes.size() / elementSize(t));
  for (size_t i = 0; i < out.size(); ++i) {
    if (t == ScalarType::kFloat32) {
      std::memcpy(&out[i], &bytes[i * 4], 4);
    } else if (t == ScalarType::kFloat16) {
      __half h;
      std::memcpy(&h, &bytes[i * 2], 2);
      out[i] = __half2float(h);
    } else {
      __nv_bfloat16 b;
      std::memcpy(&b, &bytes[i * 2], 2);
      out[i] = __bfloat162float(b);
    }
  }
  return out;
}

/// Rounds values to what the element type can hold.
std::vector<float> rounded(std::vector<float> v, ScalarType t) {
  return decode(encode(v, t), t);
}

std::vector<float> randomNormal(size_t n, double stddev = 1.0) {
  std::normal_distribution<float> dist(0.0f, static_cast<float>(stddev));
  std::vector<float> v(n);
  for (auto &x : v)
    x = dist(rng);
  return v;
}

class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes) : Bytes(bytes) {
    CUDA_CHECK(cudaMalloc(&Ptr, std::max<size_t>(bytes, 1)));
  }
  ~DeviceBuffer() { cudaFree(Ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void *get() const { return Ptr; }
  template <typename T> T *as() const { return static_cast<T *>(Ptr); }
  void upload(const void *src) {
    CUDA_CHECK(cudaMemcpy(Ptr, src, Bytes, cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<uint8_t> &src) { upload(src.data()); }
  void poison(uint8_t pattern) { CUDA_CHECK(cudaMemset(Ptr, pattern, Bytes)); }
  std::vector<uint8_t> download() const {
    std::vector<uint8_t> out(Bytes);
    CUDA_CHECK(cudaMemcpy(out.data(), Ptr, Bytes, cudaMemcpyDeviceToHost));
    return out;
  }

private:
  void *Ptr = nullptr;
  size_t Bytes;
};

void finishLaunch() {
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
}

/// Compares got with ref: every element within atol + rtol * |ref|, no NaN
/// where the reference is finite. Prints one line and counts failures.
bool expectClose(const std::string &what, const std::vector<float> &got,
                 const std::vector<double> &ref, double rtol, double atol) {
  ++cases;
  size_t bad = 0, first_bad = 0;
  double max_abs = 0, err2 = 0, ref2 = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double g = got[i], r = ref[i];
    bool ok;
    if (std::isinf(r))
      ok = g == r;
    else
      ok = std::isfinite(g) && std::fabs(g - r) <= atol + rtol * std::fabs(r);
    if (!ok && bad++ == 0)
      first_bad = i;
    if (std::isfinite(r) && std::isfinite(g)) {
      max_abs = std::max(max_abs, std::fabs(g - r));
      err2 += (g - r) * (g - r);
      ref2 += r * r;
    }
  }
  const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  if (bad) {
    ++failures;
    std::printf("FAIL %-58s %zu/%zu bad, first [%zu] got %.6g want %.6g\n",
                what.c_str(), bad, ref.size(), first_bad,
                static_cast<double>(got[first_bad]), ref[first_bad]);
    return false;
  }
  std::printf("ok   %-58s rel_l2 %.2e max_abs %.2e\n", what.c_str(), rel,
              max_abs);
  return true;
}

void expectTrue(const std::string &what, bool ok, const std::string &detail) {
  ++cases;
  if (!ok)
    ++failures;
  std::printf("%s %-58s %s\n", ok ? "ok  " : "FAIL", what.c_str(),
              detail.c_str());
}

std::string shapeName(std::initializer_list<std::pair<const char *, long>> d) {
  std::string s;
  for (const auto &[k, v] : d)
    s += (s.empty() ? "" : ",") + std::string(k) + "=" + std::to_string(v);
  return s;
}

double silu(double x) { return x / (1.0 + std::exp(-x)); }

// --- silu_and_mul ------------------------------------------------------------

void checkSiluAndMul(ScalarType t, int tokens, int d) {
  const auto input = rounded(randomNormal(size_t(tokens) * 2 * d), t);
  std::vector<double> ref(size_t(tokens) * d);
  for (int r = 0; r < tokens; ++r)
    for (int i = 0; i < d; ++i)
      ref[size_t(r) * d + i] =
          silu(input[size_t(r) * 2 * d + i]) * input[size_t(r) * 2 * d + d + i];
  DeviceBuffer in(input.size() * elementSize(t)),
      out(ref.size() * elementSize(t));
  in.upload(encode(input, t));
  for (uint8_t poison : kPoisons) {
    out.poison(poison);
    ops::launch_silu_and_mul(out.get(), in.get(), tokens, 2 * d, t, 0);
    finishLaunch();
    const double tol = t == ScalarType::kFloat32 ? 1e-5 : 1e-2;
    expectClose("silu_and_mul " + std::string(typeName(t)) + " " +
                    shapeName({{"T", tokens}, {"d", d}}),
                decode(out.download(), t), ref, tol, tol);
  }
}

// --- fused_add_rmsnorm -------------------------------------------------------

void checkFusedAddRmsnorm(ScalarType t, int tokens, int hidden) {
  const float eps = 1e-6f;
  const auto x = rounded(randomNormal(size_t(tokens) * hidden), t);
  const auto r = rounded(randomNormal(size_t(tokens) * hidden), t);
  const auto w = rounded(randomNormal(hidden), t);
  std::vector<float> sum(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    sum[i] = x[i] + r[i]; // float, as the kernel adds
  const auto stored = rounded(sum, t);
  std::vector<double> ref_residual(stored.begin(), stored.end());
  std::vector<double> ref_out(x.size());
  for (int row = 0; row < tokens; ++row) {
    double ss = 0;
    for (int i = 0; i < hidden; ++i)
      ss +=
          double(sum[size_t(row) * hidden + i]) * sum[size_t(row) * hidden + i];
    const double inv = 1.0 / std::sqrt(ss / hidden + eps);
    for (int i = 0; i < hidden; ++i)
      ref_out[size_t(row) * hidden + i] =
          stored[size_t(row) * hidden + i] * inv * w[i];
  }
  DeviceBuffer dx(x.size() * elementSize(t)), dr(r.size() * elementSize(t)),
      dw(w.size() * elementSize(t));
  dw.upload(encode(w, t));
  for (int rep = 0; rep < 2; ++rep) { // in place: fresh inputs per run
    dx.upload(encode(x, t));
    dr.upload(encode(r, t));
    ops::launch_fused_add_rmsnorm(dx.get(), dr.get(), dw.get(), tokens, hidden,
                                  eps, t, 0);
    finishLaunch();
    const double tol = t == ScalarType::kFloat32 ? 1e-5 : 1e-2;
    const std::string shape = std::string(typeName(t)) + " " +
                              shapeName({{"T", tokens}, {"h", hidden}});
    expectClose("fused_add_rmsnorm residual " + shape, decode(dr.download(), t),
                ref_residual, tol, tol);
    expectClose("fused_add_rmsnorm output " + shape, decode(dx.download(), t),
                ref_out, tol, tol);
  }
}

// --- merge_attn_states_lse ---------------------------------------------------

void checkMergeAttnStates(ScalarType t, int tokens, int heads, int head_dim) {
  const size_t rows = size_t(tokens) * heads;
  const auto va = rounded(randomNormal(rows * head_dim), t);
  const auto vb = rounded(randomNormal(rows * head_dim), t);
  auto sa = randomNormal(rows, 3.0);
  auto sb = randomNormal(rows, 3.0);
  // Empty partials: one side -inf, one side +inf, both -inf.
  if (rows > 3) {
    sa[0] = -INFINITY;
    sb[1] = INFINITY;
    sa[2] = -INFINITY;
    sb[2] = -INFINITY;
  }
  std::vector<double> ref_v(rows * head_dim), ref_s(rows);
  for (size_t row = 0; row < rows; ++row) {
    const double a = std::isinf(sa[row]) ? -INFINITY : sa[row];
    const double b = std::isinf(sb[row]) ? -INFINITY : sb[row];
    const double m = std::max(a, b);
    double wa = 0, wb = 0;
    if (m == -INFINITY) {
      ref_s[row] = -INFINITY;
    } else {
      wa = std::exp(a - m);
      wb = std::exp(b - m);
      ref_s[row] = m + std::log(wa + wb);
      const double sum = wa + wb;
      wa /= sum;
      wb /= sum;
    }
    for (int i = 0; i < head_dim; ++i)
      ref_v[row * head_dim + i] =
          va[row * head_dim + i] * wa + vb[row * head_dim + i] * wb;
  }
  DeviceBuffer dva(va.size() * elementSize(t)), dvb(vb.size() * elementSize(t)),
      dsa(rows * 4), dsb(rows * 4), dvm(va.size() * elementSize(t)),
      dsm(rows * 4);
  dva.upload(encode(va, t));
  dvb.upload(encode(vb, t));
  dsa.upload(sa.data());
  dsb.upload(sb.data());
  for (uint8_t poison : kPoisons) {
    dvm.poison(poison);
    dsm.poison(poison);
    ops::launch_merge_attn_states_lse(
        dvm.get(), dsm.as<float>(), dva.get(), dsa.as<float>(), dvb.get(),
        dsb.as<float>(), tokens, heads, head_dim, t, 0);
    finishLaunch();
    // __expf/__logf: about 1e-6 relative per unit of |s_a - s_b|.
    const double tol = t == ScalarType::kFloat32 ? 1e-4 : 1e-2;
    const std::string shape =
        std::string(typeName(t)) + " " +
        shapeName({{"T", tokens}, {"H", heads}, {"D", head_dim}});
    expectClose("merge_attn_states v " + shape, decode(dvm.download(), t),
                ref_v, tol, tol);
    expectClose("merge_attn_states s " + shape,
                decode(dsm.download(), ScalarType::kFloat32), ref_s, 1e-4,
                1e-4);
  }
}

// --- rotary_embedding --------------------------------------------------------

void checkRotary(ScalarType t, int tokens, int heads, int kv_heads,
                 int head_size, int rot_dim, int max_position) {
  std::uniform_int_distribution<int64_t> pos_dist(0, max_position - 1);
  std::vector<int64_t> pos(tokens);
  for (auto &p : pos)
    p = pos_dist(rng);
  const auto q = rounded(randomNormal(size_t(tokens) * heads * head_size), t);
  const auto k =
      rounded(randomNormal(size_t(tokens) * kv_heads * head_size), t);
  std::vector<float> cache(size_t(max_position) * rot_dim);
  for (int p = 0; p < max_position; ++p)
    for (int i = 0; i < rot_dim / 2; ++i) {
      const double theta = p * std::pow(10000.0, -2.0 * i / rot_dim);
      cache[size_t(p) * rot_dim + i] = std::cos(theta);
      cache[size_t(p) * rot_dim + rot_dim / 2 + i] = std::sin(theta);
    }
  cache = rounded(cache, t);
  auto rotate = [&](const std::vector<float> &src, int nheads) {
    std::vector<double> out(src.begin(), src.end());
    const int half = rot_dim / 2;
    for (int tok = 0; tok < tokens; ++tok)
      for (int h = 0; h < nheads; ++h)
        for (int i = 0; i < half; ++i) {
          const size_t base = (size_t(tok) * nheads + h) * head_size;
          const double c = cache[size_t(pos[tok]) * rot_dim + i];
          const double s = cache[size_t(pos[tok]) * rot_dim + half + i];
          const double x = src[base + i], y = src[base + half + i];
          out[base + i] = x * c - y * s;
          out[base + half + i] = y * c + x * s;
        }
    return out;
  };
  const auto ref_q = rotate(q, heads), ref_k = rotate(k, kv_heads);
  DeviceBuffer dpos(pos.size() * 8), dq(q.size() * elementSize(t)),
      dk(k.size() * elementSize(t)), dcache(cache.size() * elementSize(t));
  dpos.upload(pos.data());
  dcache.upload(encode(cache, t));
  for (int rep = 0; rep < 2; ++rep) {
    dq.upload(encode(q, t));
    dk.upload(encode(k, t));
    ops::launch_rotary_embedding(
        dpos.as<int64_t>(), dq.get(), dk.get(), dcache.get(), tokens, rot_dim,
        int64_t(heads) * head_size, int64_t(kv_heads) * head_size, heads,
        kv_heads, head_size, t, 0);
    finishLaunch();
    const double tol = t == ScalarType::kFloat32 ? 1e-5 : 1e-2;
    const std::string shape = std::string(typeName(t)) + " " +
                              shapeName({{"T", tokens},
                                         {"Hq", heads},
                                         {"Hk", kv_heads},
                                         {"D", head_size},
                                         {"rot", rot_dim}});
    expectClose("rotary_embedding query " + shape, decode(dq.download(), t),
                ref_q, tol, tol);
    expectClose("rotary_embedding key " + shape, decode(dk.download(), t),
                ref_k, tol, tol);
  }
}

// --- per_token_group_quant_8bit ----------------------------------------------

float decodeFp8(uint8_t byte) {
  __nv_fp8_e4m3 v;
  std::memcpy(&v, &byte, 1);
  return static_cast<float>(v);
}

void checkGroupQuant(ScalarType t, ops::QuantType qt, int tokens, int hidden,
                     int group_size) {
  const float eps = 1e-10f;
  const bool is_int8 = qt == ops::QuantType::kInt8;
  const float max_8bit = is_int8 ? 127.0f : 448.0f;
  auto input = rounded(randomNormal(size_t(tokens) * hidden), t);
  // One all-zero group exercises eps.
  std::fill(input.begin(), input.begin() + group_size, 0.0f);
  const size_t groups = input.size() / group_size;
  std::vector<double> ref_scale(groups), ref_q(input.size());
  for (size_t g = 0; g < groups; ++g) {
    float absmax = 0;
    for (int i = 0; i < group_size; ++i)
      absmax = std::max(absmax, std::fabs(input[g * group_size + i]));
    const float scale = std::max(absmax, eps) / max_8bit; // float, as on GPU
    ref_scale[g] = scale;
    for (int i = 0; i < group_size; ++i) {
      const double v =
          std::clamp(double(input[g * group_size + i]) / scale,
                     -double(max_8bit) - (is_int8 ? 1 : 0), double(max_8bit));
      ref_q[g * group_size + i] = is_int8 ? std::nearbyint(v) : v;
    }
  }
  DeviceBuffer din(input.size() * elementSize(t)), dq(input.size()),
      ds(groups * 4);
  din.upload(encode(input, t));
  for (uint8_t poison : kPoisons) {
    dq.poison(poison);
    ds.poison(poison);
    ops::launch_per_token_group_quant_8bit(din.get(), dq.get(), ds.as<float>(),
                                           tokens, hidden, group_size, eps, t,
                                           qt, 0);
    finishLaunch();
    const auto bytes = dq.download();
    std::vector<float> q(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i)
      q[i] =
          is_int8 ? float(static_cast<int8_t>(bytes[i])) : decodeFp8(bytes[i]);
    const std::string shape =
        std::string(typeName(t)) + (is_int8 ? "->int8 " : "->fp8e4m3 ") +
        shapeName({{"T", tokens}, {"h", hidden}, {"g", group_size}});
    expectClose("group_quant scale " + shape,
                decode(ds.download(), ScalarType::kFloat32), ref_scale, 1e-6,
                0);
    // int8: one step where x / scale sits on a rounding boundary; fp8 e4m3:
    // half an ulp (3 mantissa bits) plus the smallest subnormal.
    expectClose("group_quant q " + shape, q, ref_q, is_int8 ? 0 : 0.0625,
                is_int8 ? 1.0 : 1.0 / 512);
  }
}

// --- row_softmax -------------------------------------------------------------

void checkSoftmax(ScalarType t, int rows, int cols) {
  const auto x = rounded(randomNormal(size_t(rows) * cols, 4.0), t);
  std::vector<double> ref(x.size());
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c)
      m = std::max(m, double(x[size_t(r) * cols + c]));
    for (int c = 0; c < cols; ++c)
      s += std::exp(x[size_t(r) * cols + c] - m);
    for (int c = 0; c < cols; ++c)
      ref[size_t(r) * cols + c] = std::exp(x[size_t(r) * cols + c] - m) / s;
  }
  DeviceBuffer din(x.size() * elementSize(t)), dout(x.size() * elementSize(t));
  din.upload(encode(x, t));
  for (uint8_t poison : kPoisons) {
    dout.poison(poison);
    ops::launch_row_softmax(dout.get(), din.get(), rows, cols, t, 0);
    finishLaunch();
    const double rtol = t == ScalarType::kFloat32 ? 1e-4 : 1e-2;
    expectClose("row_softmax " + std::string(typeName(t)) + " " +
                    shapeName({{"rows", rows}, {"cols", cols}}),
                decode(dout.download(), t), ref, rtol, 1e-7);
  }
}

// --- tiled_transpose ---------------------------------------------------------

void checkTranspose(int rows, int cols) {
  const auto x = randomNormal(size_t(rows) * cols);
  std::vector<double> ref(x.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      ref[size_t(c) * rows + r] = x[size_t(r) * cols + c];
  DeviceBuffer din(x.size() * 4), dout(x.size() * 4);
  din.upload(x.data());
  for (uint8_t poison : kPoisons) {
    dout.poison(poison);
    ops::launch_tiled_transpose(dout.as<float>(), din.as<float>(), rows, cols,
                                0);
    finishLaunch();
    expectClose("tiled_transpose " +
                    shapeName({{"rows", rows}, {"cols", cols}}),
                decode(dout.download(), ScalarType::kFloat32), ref, 0, 0);
  }
}

// --- block_reduce ------------------------------------------------------------

void checkBlockReduce(int64_t n) {
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(n);
  for (auto &v : x)
    v = dist(rng);
  double sum = 0;
  for (float v : x)
    sum += v;
  int num_sms = 0;
  CUDA_CHECK(
      cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t workspace = size_t(num_sms) * 8;
  DeviceBuffer din(x.size() * 4), dout(4), dsums(workspace * 4), dcount(4);
  din.upload(x.data());
  dsums.poison(0);
  dcount.poison(0);
  // Launches back to back: each must leave the workspace clean for the next.
  for (uint8_t poison : kPoisons) {
    dout.poison(poison);
    ops::launch_block_reduce(din.as<float>(), dout.as<float>(),
                             dsums.as<float>(), dcount.as<unsigned int>(), n,
                             0);
    finishLaunch();
    expectClose("block_reduce " + shapeName({{"n", long(n)}}),
                decode(dout.download(), ScalarType::kFloat32), {sum}, 1e-5,
                1e-3);
    const auto sums = decode(dsums.download(), ScalarType::kFloat32);
    const auto count = dcount.download();
    const bool clean =
        std::all_of(sums.begin(), sums.end(), [](float v) { return v == 0; }) &&
        std::all_of(count.begin(), count.end(),
                    [](uint8_t b) { return b == 0; });
    expectTrue("block_reduce workspace cleared " + shapeName({{"n", long(n)}}),
               clean, clean ? "" : "block_sums or retire_count left dirty");
  }
}

// --- hand-written silu_and_mul template --------------------------------------

bool timing = false;
std::vector<std::pair<double, std::string>> timings;

/// Median of 100 launches timed with events, after 10 warm-up launches.
double medianKernelUs(const std::function<void()> &launch) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 10; ++i)
    launch();
  std::vector<float> ms(100);
  for (auto &m : ms) {
    CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&m, start, stop));
  }
  finishLaunch();
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1e3;
}

template <int BLOCK, int VEC, int UNROLL>
void runTemplateSilu(int tokens, int d, const DeviceBuffer &in,
                     const std::vector<double> &ref, DeviceBuffer &out) {
  // The manifest's constraints.
  if constexpr (BLOCK % 32 == 0 && BLOCK * VEC * UNROLL <= 16384) {
    if (timing) {
      timings.push_back(
          {medianKernelUs([&] {
             ops::silu_and_mul_kernel<__nv_bfloat16, BLOCK, VEC, UNROLL>
                 <<<tokens, BLOCK>>>(out.as<__nv_bfloat16>(),
                                     in.as<const __nv_bfloat16>(), d);
           }),
           std::to_string(BLOCK) + "," + std::to_string(VEC) + "," +
               std::to_string(UNROLL)});
      return;
    }
    for (uint8_t poison : kPoisons) {
      out.poison(poison);
      ops::silu_and_mul_kernel<__nv_bfloat16, BLOCK, VEC, UNROLL>
          <<<tokens, BLOCK>>>(out.as<__nv_bfloat16>(),
                              in.as<const __nv_bfloat16>(), d);
      finishLaunch();
      expectClose("silu_and_mul.tpl<bf16," + std::to_string(BLOCK) + "," +
                      std::to_string(VEC) + "," + std::to_string(UNROLL) +
                      "> " + shapeName({{"T", tokens}, {"d", d}}),
                  decode(out.download(), ScalarType::kBFloat16), ref, 1e-2,
                  1e-2);
    }
  }
}

template <int BLOCK, int VEC>
void runTemplateSiluUnrolls(int t, int d, const DeviceBuffer &in,
                            const std::vector<double> &ref, DeviceBuffer &out) {
  runTemplateSilu<BLOCK, VEC, 1>(t, d, in, ref, out);
  runTemplateSilu<BLOCK, VEC, 2>(t, d, in, ref, out);
  runTemplateSilu<BLOCK, VEC, 4>(t, d, in, ref, out);
}

template <int BLOCK>
void runTemplateSiluVecs(int t, int d, const DeviceBuffer &in,
                         const std::vector<double> &ref, DeviceBuffer &out) {
  runTemplateSiluUnrolls<BLOCK, 1>(t, d, in, ref, out);
  runTemplateSiluUnrolls<BLOCK, 2>(t, d, in, ref, out);
  runTemplateSiluUnrolls<BLOCK, 4>(t, d, in, ref, out);
  runTemplateSiluUnrolls<BLOCK, 8>(t, d, in, ref, out);
}

void checkSiluTemplate(int tokens, int d) {
  const ScalarType t = ScalarType::kBFloat16;
  const auto input = rounded(randomNormal(size_t(tokens) * 2 * d), t);
  std::vector<double> ref(size_t(tokens) * d);
  for (int r = 0; r < tokens; ++r)
    for (int i = 0; i < d; ++i)
      ref[size_t(r) * d + i] =
          silu(input[size_t(r) * 2 * d + i]) * input[size_t(r) * 2 * d + d + i];
  DeviceBuffer in(input.size() * 2), out(ref.size() * 2);
  in.upload(encode(input, t));
  runTemplateSiluVecs<64>(tokens, d, in, ref, out);
  runTemplateSiluVecs<128>(tokens, d, in, ref, out);
  runTemplateSiluVecs<256>(tokens, d, in, ref, out);
  runTemplateSiluVecs<512>(tokens, d, in, ref, out);
  runTemplateSiluVecs<1024>(tokens, d, in, ref, out);
}

// --- planted faults ----------------------------------------------------------

template <int FAULT>
std::vector<float> runFault(const std::vector<float> &x, DeviceBuffer &dx,
                            DeviceBuffer &dy, uint8_t poison) {
  const int n = static_cast<int>(x.size());
  dy.poison(poison);
  ktune_test::planted_faults_kernel<256, FAULT>
      <<<(n + 255) / 256, 256>>>(dy.as<float>(), dx.as<const float>(), n);
  finishLaunch();
  return decode(dy.download(), ScalarType::kFloat32);
}

void checkPlantedFaults() {
  const int n = 100003;
  const auto x = randomNormal(n);
  const int guard = 64;
  DeviceBuffer dx(size_t(n) * 4), dy(size_t(n + guard) * 4);
  dx.upload(x.data());
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i)
    ref[i] = 2.0 * x[i] + 1.0;
  auto outputs = [&](const std::vector<float> &y) {
    return std::vector<float>(y.begin(), y.begin() + n);
  };
  auto guardTouched = [&](const std::vector<float> &y, uint8_t poison) {
    for (int i = n; i < n + guard; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &y[i], 4);
      if (bits != 0x01010101u * poison)
        return true;
    }
    return false;
  };

  auto y0 = runFault<0>(x, dx, dy, 0xFF);
  expectClose("planted_faults<256,0> correct", outputs(y0), ref, 1e-6, 1e-6);
  expectTrue("planted_faults<256,0> guard intact", !guardTouched(y0, 0xFF), "");

  auto y1 = outputs(runFault<1>(x, dx, dy, 0xFF));
  size_t off = 0;
  for (int i = 0; i < n; ++i)
    off += std::fabs(y1[i] - ref[i] - 0.5) < 1e-5;
  expectTrue("planted_faults<256,1> wrong by +0.5", off == size_t(n),
             std::to_string(off) + "/" + std::to_string(n) + " off by 0.5");

  size_t unwritten = 0, wrong = 0;
  for (uint8_t poison : kPoisons) {
    auto y2 = outputs(runFault<2>(x, dx, dy, poison));
    for (int i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &y2[i], 4);
      const bool poisoned = bits == 0x01010101u * poison;
      unwritten += (i & 1) && poisoned;
      wrong += !(i & 1) && y2[i] != float(ref[i]) &&
               std::fabs(y2[i] - ref[i]) > 1e-6;
    }
  }
  expectTrue("planted_faults<256,2> odd outputs unwritten",
             unwritten == size_t(n / 2) * 2 && wrong == 0,
             std::to_string(unwritten) + " unwritten, " +
                 std::to_string(wrong) + " wrong");

  auto y3 = outputs(runFault<3>(x, dx, dy, 0x00));
  size_t nans = 0, nan_where_expected = 0;
  for (int i = 0; i < n; ++i)
    if (std::isnan(y3[i])) {
      ++nans;
      nan_where_expected += i % 1024 == 7;
    }
  expectTrue("planted_faults<256,3> NaN at i % 1024 == 7",
             nans == nan_where_expected &&
                 nans == size_t((n - 7 + 1023) / 1024),
             std::to_string(nans) + " NaN");

  auto y6 = runFault<6>(x, dx, dy, 0xFF);
  expectClose("planted_faults<256,6> in-bounds outputs", outputs(y6), ref, 1e-6,
              1e-6);
  expectTrue("planted_faults<256,6> writes past the end",
             guardTouched(y6, 0xFF), "y[n] overwritten");
}

int runSingleFault(int fault) {
  const int n = 4096;
  const auto x = randomNormal(n);
  DeviceBuffer dx(n * 4), dy(n * 4);
  dx.upload(x.data());
  if (fault == 4)
    ktune_test::planted_faults_kernel<256, 4>
        <<<n / 256, 256>>>(dy.as<float>(), dx.as<const float>(), n);
  else if (fault == 5)
    ktune_test::planted_faults_kernel<256, 5>
        <<<n / 256, 256>>>(dy.as<float>(), dx.as<const float>(), n);
  else
    return 2;
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("fault %d: launch %s, synchronize %s\n", fault,
              cudaGetErrorName(launch), cudaGetErrorName(sync));
  // An illegal address is sticky: every later call fails too.
  const cudaError_t after = cudaMemset(dy.get(), 0, 4);
  std::printf("fault %d: next call %s\n", fault, cudaGetErrorName(after));
  return fault == 4 && sync == cudaErrorIllegalAddress &&
                 after == cudaErrorIllegalAddress
             ? 0
             : 1;
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  // `all SEED` repeats a run; otherwise every run draws a fresh seed.
  const bool seeded = mode == "all" && argc > 2 && argv[2][0] != '\0';
  const uint64_t seed =
      seeded ? std::strtoull(argv[2], nullptr, 10) : std::random_device{}();
  rng.seed(seed);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  if (mode == "fault" && argc > 2)
    return runSingleFault(std::atoi(argv[2]));
  if (mode == "time-template") {
    // Spread of the hand-written template's space (bf16), best first.
    timing = true;
    for (auto [tokens, d] :
         std::vector<std::pair<int, int>>{{16, 4096}, {4096, 11008}}) {
      timings.clear();
      checkSiluTemplate(tokens, d);
      std::sort(timings.begin(), timings.end());
      std::printf("silu_and_mul.tpl T=%d d=%d: %zu configurations\n", tokens, d,
                  timings.size());
      for (size_t i = 0; i < timings.size(); ++i)
        if (i < 5 || i + 3 >= timings.size() || timings[i].second == "256,8,1")
          std::printf("  %2zu  <%s>  %8.2f us%s\n", i + 1,
                      timings[i].second.c_str(), timings[i].first,
                      timings[i].second == "256,8,1" ? "  (default)" : "");
    }
    return 0;
  }
  if (mode != "all") {
    std::fprintf(
        stderr,
        "usage: check_examples [all [SEED] | time-template | fault N]\n");
    return 2;
  }

  const ScalarType bf16 = ScalarType::kBFloat16, fp16 = ScalarType::kFloat16,
                   fp32 = ScalarType::kFloat32;
  for (int tokens : {1, 7, 256})
    for (int d : {4096, 11008, 14336, 4100, 3})
      checkSiluAndMul(bf16, tokens, d);
  checkSiluAndMul(fp16, 16, 5120);
  checkSiluAndMul(fp32, 16, 5120);
  checkSiluAndMul(fp32, 3, 1001);

  for (int tokens : {1, 7, 256})
    for (int hidden : {4096, 5120, 8192, 4100, 100})
      checkFusedAddRmsnorm(bf16, tokens, hidden);
  checkFusedAddRmsnorm(fp16, 16, 4096);
  checkFusedAddRmsnorm(fp32, 16, 4096);
  checkFusedAddRmsnorm(fp32, 5, 1000);

  for (int tokens : {1, 16, 257})
    for (int head_dim : {128, 64, 100})
      checkMergeAttnStates(bf16, tokens, 32, head_dim);
  checkMergeAttnStates(fp16, 16, 8, 128);
  checkMergeAttnStates(fp32, 16, 8, 128);
  checkMergeAttnStates(fp32, 5, 3, 30);

  for (int tokens : {1, 33, 1024})
    for (int rot_dim : {128, 64})
      checkRotary(bf16, tokens, 32, 8, 128, rot_dim, 4096);
  checkRotary(fp16, 16, 64, 8, 128, 128, 4096);
  checkRotary(fp32, 16, 40, 8, 80, 80, 4096);
  checkRotary(fp32, 3, 2, 1, 24, 16, 64);

  for (int tokens : {1, 3, 100})
    for (int hidden : {4096, 7168})
      for (auto qt : {ops::QuantType::kInt8, ops::QuantType::kFloat8E4M3})
        checkGroupQuant(bf16, qt, tokens, hidden, 128);
  checkGroupQuant(fp16, ops::QuantType::kInt8, 16, 4096, 128);
  checkGroupQuant(fp32, ops::QuantType::kFloat8E4M3, 16, 4096, 128);
  checkGroupQuant(bf16, ops::QuantType::kInt8, 5, 1024, 64);
  checkGroupQuant(bf16, ops::QuantType::kInt8, 5, 2048, 512);

  for (int rows : {1, 5, 300})
    for (int cols : {1, 100, 4096, 32000})
      checkSoftmax(fp32, rows, cols);
  checkSoftmax(fp16, 16, 4096);
  checkSoftmax(bf16, 16, 4096);

  for (auto [rows, cols] : std::vector<std::pair<int, int>>{{1, 1},
                                                            {1, 4096},
                                                            {33, 65},
                                                            {257, 1000},
                                                            {4096, 4096},
                                                            {4096, 11008}})
    checkTranspose(rows, cols);

  for (int64_t n : {int64_t(0), int64_t(1), int64_t(1000), int64_t(1000003),
                    int64_t(1) << 24})
    checkBlockReduce(n);

  checkSiluTemplate(7, 4096);
  checkSiluTemplate(3, 4100);
  checkSiluTemplate(2, 11008);

  checkPlantedFaults();

  std::printf("%d cases, %d failures (seed %llu)\n", cases, failures,
              static_cast<unsigned long long>(seed));
  return failures == 0 ? 0 : 1;
}
