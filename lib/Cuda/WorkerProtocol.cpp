#include "ktune/Cuda/WorkerProtocol.h"
#include "ktune/Support/Try.h"

#include "ktune/Support/DType.h"

#include <cmath>
#include <concepts>
#include <limits>

namespace ktune::protocol {

using nlohmann::json;

std::string hexEncode(std::string_view bytes) {
  static const char *Digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += Digits[c >> 4];
    out += Digits[c & 15];
  }
  return out;
}

Expected<std::string> hexDecode(std::string_view hex) {
  if (hex.size() % 2)
    return makeError("odd number of hex digits");
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return makeError("not a hex digit");
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

template <class F> static auto guarded(F &&f) -> decltype(f()) {
  try {
    return f();
  } catch (const json::exception &e) {
    return makeError(std::string("malformed worker message: ") + e.what());
  }
}

json toJson(const BufferSpec &b) {
  return json{
      {"name", b.name},     {"dtype", std::string(dtypeInfo(b.dtype).name)},
      {"count", b.count},   {"role", nameOf(RoleNames, b.role, "inout")},
      {"fill", b.fillMode}, {"low", b.low},
      {"high", b.high},     {"seed", b.seed},
      {"rtol", b.rtol},     {"atol", b.atol}};
}

Expected<BufferSpec> bufferSpecFromJson(const json &j) {
  return guarded([&]() -> Expected<BufferSpec> {
    BufferSpec b;
    b.name = j.at("name").get<std::string>();
    auto dtype = parseDType(j.at("dtype").get<std::string>());
    if (!dtype)
      return makeError("unknown dtype " + j.at("dtype").dump());
    b.dtype = *dtype;
    b.count = j.at("count").get<int64_t>();
    auto role = parseName(RoleNames, j.at("role").get<std::string>());
    if (!role)
      return makeError("unknown role " + j.at("role").dump());
    b.role = *role;
    b.fillMode = j.at("fill").get<int>();
    b.low = j.at("low").get<double>();
    b.high = j.at("high").get<double>();
    b.seed = j.at("seed").get<uint64_t>();
    b.rtol = j.at("rtol").get<double>();
    b.atol = j.at("atol").get<double>();
    if (b.count < 0)
      return makeError("negative buffer size");
    return b;
  });
}

json toJson(const Launch &l) {
  json args = json::array();
  for (const auto &a : l.args)
    if (a.buffer >= 0)
      args.push_back({{"buffer", a.buffer}});
    else if (a.buffer == KernelArgValue::StreamSlot)
      args.push_back({{"stream", true}});
    else
      args.push_back({{"bytes", hexEncode(a.bytes)}});
  return json{{"grid", l.dims.grid},
              {"block", l.dims.block},
              {"smem", l.dims.smemDynamic},
              {"args", args}};
}

Expected<Launch> launchFromJson(const json &j) {
  return guarded([&]() -> Expected<Launch> {
    Launch l;
    l.dims.grid = j.at("grid").get<std::array<int64_t, 3>>();
    l.dims.block = j.at("block").get<std::array<int64_t, 3>>();
    l.dims.smemDynamic = j.at("smem").get<int64_t>();
    for (const auto &a : j.at("args")) {
      KernelArgValue v;
      if (a.contains("buffer")) {
        v.buffer = a.at("buffer").get<int>();
      } else if (a.contains("stream")) {
        v.buffer = KernelArgValue::StreamSlot;
      } else {
        KTUNE_TRY_ASSIGN(auto bytes,
                         hexDecode(a.at("bytes").get<std::string>()));
        v.bytes = std::move(bytes);
      }
      l.args.push_back(std::move(v));
    }
    return l;
  });
}

// TimeOptions (nested members) and FunctionAttributes (sent by the worker,
// read by the client) are flat objects: for each, one list of (key, member),
// eachField, serves writing it and reading it back.

template <class T> static json writeFields(const T &value) {
  json j = json::object();
  eachField(value,
            [&](const char *key, const auto &member) { j[key] = member; });
  return j;
}

/// Throws json::exception on a missing or mistyped key.
template <class T> static T readFields(const json &j) {
  T value;
  eachField(value, [&](const char *key, auto &member) {
    member = j.at(key).get<std::remove_cvref_t<decltype(member)>>();
  });
  return value;
}

template <class T> static Expected<T> readFieldsChecked(const json &j) {
  return guarded([&]() -> Expected<T> { return readFields<T>(j); });
}

template <class O, class Field>
requires std::same_as<std::remove_const_t<O>, TimeOptions>
static void eachField(O &o, Field &&field) {
  field("cold_l2", o.coldL2);
  field("min_reps", o.rule.minReps);
  field("max_reps", o.rule.maxReps);
  field("max_seconds", o.rule.maxSeconds);
  field("target_rel_iqr", o.rule.targetRelIqr);
  field("fixed_reps", o.fixedReps);
  field("batch_threshold_us", o.batchThresholdUs);
  field("batch_target_us", o.batchTargetUs);
}

json toJson(const TimeOptions &o) { return writeFields(o); }

Expected<TimeOptions> timeOptionsFromJson(const json &j) {
  return readFieldsChecked<TimeOptions>(j);
}

json toJson(const TimeResult &r) {
  return json{{"samples_us", r.samplesUs},
              {"batched", r.batched},
              {"batch_size", r.batchSize},
              {"rotation_sets", r.rotationSets},
              {"wall_s", r.wallSeconds}};
}

Expected<TimeResult> timeResultFromJson(const json &j) {
  return guarded([&]() -> Expected<TimeResult> {
    TimeResult r;
    r.samplesUs = j.at("samples_us").get<std::vector<double>>();
    r.batched = j.at("batched").get<bool>();
    r.batchSize = j.at("batch_size").get<int>();
    r.rotationSets = j.at("rotation_sets").get<int>();
    r.wallSeconds = j.at("wall_s").get<double>();
    return r;
  });
}

template <class A, class Field>
requires std::same_as<std::remove_const_t<A>, FunctionAttributes>
static void eachField(A &a, Field &&field) {
  field("registers", a.registers);
  field("smem_static", a.smemStatic);
  field("local_bytes", a.localBytes);
  field("max_threads_per_block", a.maxThreadsPerBlock);
  field("binary_version", a.binaryVersion);
}

void to_json(json &j, const FunctionAttributes &a) { j = writeFields(a); }

void from_json(const json &j, FunctionAttributes &a) {
  a = readFields<FunctionAttributes>(j);
}

json toJson(const BufferCheck &c) {
  // NaN and Inf are not JSON numbers: send them as strings.
  auto num = [](double v) -> json {
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    return v;
  };
  return json{{"name", c.name},
              {"mismatches", c.mismatches},
              {"first", c.firstIndex},
              {"got", num(c.got)},
              {"want", num(c.want)},
              {"max_abs_err", num(c.maxAbsErr)},
              {"non_finite", c.nonFinite},
              {"want_non_finite", c.wantNonFinite},
              {"guard_before", c.guardBefore},
              {"guard_after", c.guardAfter}};
}

static double numberFromJson(const json &j) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s == "nan")
      return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf")
      return std::numeric_limits<double>::infinity();
    if (s == "-inf")
      return -std::numeric_limits<double>::infinity();
  }
  return j.get<double>();
}

Expected<BufferCheck> bufferCheckFromJson(const json &j) {
  return guarded([&]() -> Expected<BufferCheck> {
    BufferCheck c;
    c.name = j.at("name").get<std::string>();
    c.mismatches = j.at("mismatches").get<uint64_t>();
    c.firstIndex = j.at("first").get<uint64_t>();
    c.got = numberFromJson(j.at("got"));
    c.want = numberFromJson(j.at("want"));
    c.maxAbsErr = numberFromJson(j.at("max_abs_err"));
    c.nonFinite = j.at("non_finite").get<uint64_t>();
    c.wantNonFinite = j.at("want_non_finite").get<uint64_t>();
    c.guardBefore = j.at("guard_before").get<uint64_t>();
    c.guardAfter = j.at("guard_after").get<uint64_t>();
    return c;
  });
}

} // namespace ktune::protocol
