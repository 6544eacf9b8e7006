#include "families/gemv/weight_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/numeric.hpp"

namespace tilewise::gemv {

namespace {

constexpr std::string_view magic = "TWGEMV1";
// A weight file is read whole; past this it is refused rather than read (the largest nn.Linear weight is a few GB).
constexpr int64_t kMaxWeightBytes = int64_t(1) << 40;

std::string scale_type(Format f) { return group_size(f) ? "fp16" : f == Format::fp8 ? "fp32" : "none"; }

bool gpu_present() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

files::Existing existing(bool overwrite) { return overwrite ? files::Existing::replace : files::Existing::refuse; }

// An integer header field; a float (1e300), a string or a missing field is refused rather than converted.
int64_t integer_field(const nlohmann::json& head, const char* key) {
  const auto it = head.find(key);
  if (it == head.end() || !it->is_number_integer()) throw Error(fmt::format("'{}' is missing or not an integer", key));
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
    throw Error(fmt::format("'{}' = {} is past 2^63", key, it->get<uint64_t>()));  // read as int64_t it would wrap
  return it->get<int64_t>();
}

}  // namespace

void write_packed(const std::string& path, const HostPacked& w, DType source, files::Existing existing) {
  const PackedLayout& l = w.layout;
  const nlohmann::json head = {{"format", to_string(l.format)}, {"n", l.n},
                               {"k", l.k},                      {"row_bytes", l.row_bytes},
                               {"scale_bytes", l.scale_bytes},  {"scale_type", scale_type(l.format)},
                               {"source", tilewise::to_string(source)}};
  std::string bytes = std::string(magic) + "\n" + head.dump() + "\n";
  bytes.append(w.q.begin(), w.q.end());
  bytes.append(w.scales.begin(), w.scales.end());
  files::write(path, bytes, existing);
}

HostPacked parse_packed(std::string_view bytes, const std::string& origin) {
  const size_t line1 = bytes.find('\n'), line2 = line1 == bytes.npos ? line1 : bytes.find('\n', line1 + 1);
  if (bytes.substr(0, line1) != magic || line2 == bytes.npos || line2 > 4096)
    throw Error(fmt::format("{}: not a packed weight file (no '{}' header)", origin, magic));
  HostPacked w;
  try {
    // parse_json: a key given twice is refused, not the last one taken.
    const nlohmann::json head = parse_json(bytes.substr(line1 + 1, line2 - line1 - 1), "line 2");
    if (!head.is_object() || !head.contains("format") || !head["format"].is_string())
      throw Error("no format named");
    w.layout = packed_layout(parse_format(head["format"].get<std::string>()), integer_field(head, "n"),
                             integer_field(head, "k"));
    if (integer_field(head, "row_bytes") != w.layout.row_bytes ||
        integer_field(head, "scale_bytes") != w.layout.scale_bytes)
      throw Error("its sizes do not match its format and shape");
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: bad header: {}", origin, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: bad header: {}", origin, e.what()));
  }
  const std::string_view body = bytes.substr(line2 + 1);
  if (int64_t(body.size()) != w.layout.bytes())
    throw Error(fmt::format("{}: holds {} bytes of weights and scales; its header says {}", origin, body.size(),
                            w.layout.bytes()));
  const size_t q = size_t(w.layout.q_bytes());
  w.q.assign(body.begin(), body.begin() + std::ptrdiff_t(q));
  w.scales.assign(body.begin() + std::ptrdiff_t(q), body.end());
  return w;
}

HostPacked read_packed(const std::string& path) { return parse_packed(files::read(path, kMaxWeightBytes), path); }

FileSummary quantize_file(const QuantizeRequest& r) {
  if (r.dtype == DType::fp8_e4m3) throw Error("quantize takes bf16 or fp16 weights, not fp8");
  if (r.rows < 1 || r.cols < 1) throw Error(fmt::format("--rows {} and --cols {} must be positive", r.rows, r.cols));
  const PackedLayout layout = packed_layout(r.format, r.rows, r.cols);  // the shape errors before any reading
  const int64_t need = checked_product({r.rows, r.cols, element_bytes(r.dtype)},
                                       fmt::format("{} x {} weights", r.rows, r.cols));
  files::refuse_input_as_output(r.output, {r.input});
  files::check_output(r.output, existing(r.overwrite));
  const files::Opened in = files::open_regular(AT_FDCWD, r.input, r.input, files::Links::follow);
  if (int64_t(in.st.st_size) != need)
    throw Error(fmt::format("{}: holds {} bytes; {} x {} {} weights take {}", r.input, int64_t(in.st.st_size), r.rows,
                            r.cols, tilewise::to_string(r.dtype), need));
  const std::string src = files::read_opened(in, r.input, need);
  // Weights the format cannot give back are refused before anything is written, as the Python API refuses them
  // (tilewise.quantize raises ValueError): a file holding them would dequantize without a word (NaN as 0.0).
  if (const Hazards h = find_hazards(src.data(), r.dtype, r.rows, r.cols, r.cols, r.format); !h.none())
    return {fmt::format("{}: not written: {} x {} {} -> {} is NOT FAITHFUL: {} weights not finite (NaN or Inf), {} {} "
                        "past the range of {}{} (first at {}): they would not come back as they went in",
                        r.output, r.rows, r.cols, tilewise::to_string(r.dtype), to_string(r.format), h.nonfinite,
                        h.overflowed, r.format == Format::fp16 ? "weights" : "groups whose fp16 scale is",
                        to_string(r.format),
                        h.underflowed ? fmt::format(", {} groups whose fp16 scale is under fp16's normal range "
                                                    "(weights too small for {})", h.underflowed, to_string(r.format))
                                      : "",
                        h.first),
            false};
  HostPacked w;
  const bool gpu = !r.cpu && gpu_present();
  if (gpu) {
    cudaStream_t stream = nullptr;  // the legacy default stream: this is a one-off, synchronous
    device::Buffer d_src(src.size());
    TW_CUDA(cudaMemcpy(d_src.get(), src.data(), src.size(), cudaMemcpyHostToDevice));
    const PackedWeights d = quantize(d_src.get(), r.dtype, r.rows, r.cols, r.cols, r.format, stream);
    w.layout = d.layout;
    w.q.resize(size_t(layout.q_bytes()));
    w.scales.resize(size_t(layout.scale_bytes));
    TW_CUDA(cudaMemcpy(w.q.data(), d.q.get(), w.q.size(), cudaMemcpyDeviceToHost));
    if (!w.scales.empty()) TW_CUDA(cudaMemcpy(w.scales.data(), d.scales.get(), w.scales.size(), cudaMemcpyDeviceToHost));
  } else {
    w = quantize_cpu(src.data(), r.dtype, r.rows, r.cols, r.cols, r.format);
  }
  write_packed(r.output, w, r.dtype, existing(r.overwrite));
  return {fmt::format("{}: {} x {} {} -> {} ({:.4g} MB of weights and scales, {:.3f}x the source) on the {}", r.output,
                      r.rows, r.cols, tilewise::to_string(r.dtype), to_string(r.format), layout.bytes() / 1e6,
                      double(layout.bytes()) / double(need), gpu ? "GPU" : "CPU"),
          true};
}

FileSummary dequantize_file(const std::string& input, const std::string& output, const std::string& to,
                            bool overwrite) {
  if (to != "f32" && to != "bf16" && to != "fp16")
    throw Error(fmt::format("--to '{}': dequantize writes f32, bf16 or fp16", to));
  files::refuse_input_as_output(output, {input});
  files::check_output(output, existing(overwrite));
  const HostPacked w = read_packed(input);
  const std::vector<float> values = dequantize_cpu(w);
  std::string out(values.size() * (to == "f32" ? 4 : 2), '\0');
  int64_t nonfinite = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (to == "f32") {
      std::memcpy(out.data() + 4 * i, &values[i], 4);
      nonfinite += !std::isfinite(values[i]);
    } else {
      const uint16_t b = to == "bf16" ? float_to_bf16_bits(values[i]) : float_to_fp16_bits(values[i]);
      std::memcpy(out.data() + 2 * i, &b, 2);
      nonfinite += !std::isfinite(to == "bf16" ? bf16_to_double(b) : fp16_to_double(b));
    }
  }
  files::write(output, out, existing(overwrite));
  FileSummary s{fmt::format("{}: {} x {} {} -> {}", output, w.layout.n, w.layout.k, to_string(w.layout.format), to),
                nonfinite == 0};
  if (nonfinite) s.text += fmt::format("; {} values not finite (NaN, Inf, or past the range of {})", nonfinite, to);
  return s;
}

}  // namespace tilewise::gemv
