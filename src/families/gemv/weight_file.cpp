#include "families/gemv/weight_file.hpp"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/numeric.hpp"

namespace tilewise::gemv {

namespace {

constexpr char magic[] = "TWGEMV1";

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_all(const std::string& path, const std::vector<const std::vector<uint8_t>*>& parts, const std::string& head) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(fmt::format("{}: cannot write", path));
  out << head;
  for (const auto* p : parts) out.write(reinterpret_cast<const char*>(p->data()), std::streamsize(p->size()));
  if (!out.flush()) throw Error(fmt::format("{}: cannot write", path));
}

std::string scale_type(Format f) { return group_size(f) ? "fp16" : f == Format::fp8 ? "fp32" : "none"; }

bool gpu_present() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace

void write_packed(const std::string& path, const HostPacked& w, DType source) {
  const PackedLayout& l = w.layout;
  const nlohmann::json head = {{"format", to_string(l.format)}, {"n", l.n},
                               {"k", l.k},                      {"row_bytes", l.row_bytes},
                               {"scale_bytes", l.scale_bytes},  {"scale_type", scale_type(l.format)},
                               {"source", tilewise::to_string(source)}};
  write_all(path, {&w.q, &w.scales}, std::string(magic) + "\n" + head.dump() + "\n");
}

HostPacked read_packed(const std::string& path) {
  const std::vector<uint8_t> bytes = read_all(path);
  const std::string text(bytes.begin(), bytes.begin() + std::min<size_t>(bytes.size(), 4096));
  const size_t line1 = text.find('\n'), line2 = line1 == std::string::npos ? line1 : text.find('\n', line1 + 1);
  if (text.substr(0, line1) != magic || line2 == std::string::npos)
    throw Error(fmt::format("{}: not a packed weight file (no '{}' header)", path, magic));
  HostPacked w;
  try {
    const nlohmann::json head = nlohmann::json::parse(text.substr(line1 + 1, line2 - line1 - 1));
    w.layout = packed_layout(parse_format(head.at("format").get<std::string>()), head.at("n").get<int64_t>(),
                             head.at("k").get<int64_t>());
    if (head.at("row_bytes").get<int64_t>() != w.layout.row_bytes ||
        head.at("scale_bytes").get<int64_t>() != w.layout.scale_bytes)
      throw Error("its sizes do not match its format and shape");
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: bad header: {}", path, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: bad header: {}", path, e.what()));
  }
  const size_t body = line2 + 1, need = size_t(w.layout.q_bytes() + w.layout.scale_bytes);
  if (bytes.size() - body != need)
    throw Error(fmt::format("{}: holds {} bytes of weights and scales; its header says {}", path, bytes.size() - body, need));
  w.q.assign(bytes.begin() + long(body), bytes.begin() + long(body + size_t(w.layout.q_bytes())));
  w.scales.assign(bytes.begin() + long(body + size_t(w.layout.q_bytes())), bytes.end());
  return w;
}

std::string quantize_file(const QuantizeRequest& r) {
  if (r.dtype == DType::fp8_e4m3) throw Error("quantize takes bf16 or fp16 weights, not fp8");
  if (r.rows < 1 || r.cols < 1) throw Error(fmt::format("--rows {} and --cols {} must be positive", r.rows, r.cols));
  const PackedLayout layout = packed_layout(r.format, r.rows, r.cols);  // the shape errors before any reading
  const std::vector<uint8_t> src = read_all(r.input);
  const int64_t need = r.rows * r.cols * element_bytes(r.dtype);
  if (int64_t(src.size()) != need)
    throw Error(fmt::format("{}: holds {} bytes; {} x {} {} weights take {}", r.input, src.size(), r.rows, r.cols,
                            tilewise::to_string(r.dtype), need));
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
  write_packed(r.output, w, r.dtype);
  return fmt::format("{}: {} x {} {} -> {} ({:.4g} MB of weights and scales, {:.3f}x the source) on the {}", r.output,
                     r.rows, r.cols, tilewise::to_string(r.dtype), to_string(r.format), layout.bytes() / 1e6,
                     double(layout.bytes()) / double(need), gpu ? "GPU" : "CPU");
}

std::string dequantize_file(const std::string& input, const std::string& output, const std::string& to) {
  if (to != "f32" && to != "bf16" && to != "fp16")
    throw Error(fmt::format("--to '{}': dequantize writes f32, bf16 or fp16", to));
  const HostPacked w = read_packed(input);
  const std::vector<float> values = dequantize_cpu(w);
  std::vector<uint8_t> out(values.size() * (to == "f32" ? 4 : 2));
  for (size_t i = 0; i < values.size(); ++i) {
    if (to == "f32") {
      std::memcpy(out.data() + 4 * i, &values[i], 4);
    } else {
      const uint16_t b = to == "bf16" ? float_to_bf16_bits(values[i]) : float_to_fp16_bits(values[i]);
      std::memcpy(out.data() + 2 * i, &b, 2);
    }
  }
  write_all(output, {&out}, "");
  return fmt::format("{}: {} x {} {} -> {}", output, w.layout.n, w.layout.k, to_string(w.layout.format), to);
}

}  // namespace tilewise::gemv
