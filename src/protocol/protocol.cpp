#include "protocol/protocol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace tilewise::protocol {
// What toml++ asserted about its own parser state (see below).
struct TomlAssertion {
  const char* what;
};
}  // namespace tilewise::protocol

// Header-only, so the tool runs where only the toolchain is installed (the GPU machine has no toml++ library).
// toml++ 3.3 asserts, and where NDEBUG is set assumes (clang: __builtin_assume), things its parser has not checked
// yet: the fuzzer's table header `[[#x]]` failed one (tests/fuzz/regressions/protocol/). Whatever NDEBUG says, every
// such assertion here is a check that throws, reported as the file's error. A few sit in toml++'s noexcept functions
// (the reader's step-back history, the UTF-8 decoder's state, toml::path, which this reader does not use): there the
// throw ends the process (GCC's -Wterminate says so), which is still better than running on past a broken invariant;
// the fuzz harness (tests/fuzz/protocol_fuzz.cpp) has not reached one.
#define TOML_HEADER_ONLY 1
#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_ASSERT(expr) ((expr) ? static_cast<void>(0) : throw tilewise::protocol::TomlAssertion{#expr})
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wterminate"
#endif
#include <toml++/toml.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#pragma pop_macro("NDEBUG")

#include "bench/arm.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/suite.hpp"
#include "receipt/verdict.hpp"

namespace tilewise::protocol {

namespace {

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const toml::node* at, const std::string& what) const {
    if (at && at->source().begin) throw Error(fmt::format("{}:{}: {}", path_, at->source().begin.line, what));
    throw Error(fmt::format("{}: {}", path_, what));
  }

  void only_keys(const toml::table& t, std::initializer_list<std::string_view> allowed, const char* where) const {
    for (const auto& [key, value] : t)
      if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end())
        fail(&value, fmt::format("unknown key '{}' in {}", key.str(), where));
  }

  std::string text(const toml::table& t, const char* key, const char* where, bool required = true) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) fail(&t, fmt::format("{} needs '{}'", where, key));
      return {};
    }
    if (!n->is_string()) fail(n, fmt::format("'{}' must be a string", key));
    return std::string(n->as_string()->get());
  }

  std::vector<std::string> texts(const toml::table& t, const char* key, bool required) const {
    const toml::node* n = t.get(key);
    std::vector<std::string> out;
    if (!n) {
      if (required) fail(&t, fmt::format("[instrument] needs '{}'", key));
      return out;
    }
    const toml::array* a = n->as_array();
    if (!a || a->empty()) fail(n, fmt::format("'{}' must be a non-empty array of strings", key));
    for (const toml::node& e : *a) {
      if (!e.is_string()) fail(&e, fmt::format("'{}' must hold strings", key));
      out.emplace_back(e.as_string()->get());
    }
    return out;
  }

  template <typename F>
  auto parsed(const toml::node* at, F&& f) const {
    try {
      return f();
    } catch (const Error& e) {
      fail(at, e.what());
    }
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bench::Options read_instrument(const Reader& rd, const toml::table& root) {
  const toml::table* t = root["instrument"].as_table();
  if (!t) rd.fail(&root, "missing the [instrument] table");
  rd.only_keys(*t, {"suites", "only", "dtypes", "layouts", "arms", "baseline", "cold", "repeats"}, "[instrument]");
  bench::Options o;
  o.suites = rd.texts(*t, "suites", true);
  o.only = rd.texts(*t, "only", false);
  o.dtypes.clear();
  for (const std::string& d : rd.texts(*t, "dtypes", true)) o.dtypes.push_back(rd.parsed(t->get("dtypes"), [&] { return parse_dtype(d); }));
  o.layouts.clear();
  for (const std::string& l : rd.texts(*t, "layouts", true))
    o.layouts.push_back(rd.parsed(t->get("layouts"), [&] { return parse_layout(l); }));
  o.arms = rd.texts(*t, "arms", true);
  for (const std::string& a : o.arms) rd.parsed(t->get("arms"), [&] { return bench::make_arm(a); });
  if (const toml::node* b = t->get("baseline")) {
    o.baseline = rd.text(*t, "baseline", "[instrument]");
    if (std::find(o.arms.begin(), o.arms.end(), o.baseline) == o.arms.end())
      rd.fail(b, fmt::format("baseline '{}' is not among the arms", o.baseline));
  }
  if (const toml::node* c = t->get("cold")) {
    if (!c->is_boolean()) rd.fail(c, "'cold' must be true or false");
    o.cold = c->as_boolean()->get();
  }
  if (const toml::node* r = t->get("repeats")) {
    if (!r->is_integer() || r->as_integer()->get() < 1) rd.fail(r, "'repeats' must be a positive integer");
    if (r->as_integer()->get() > std::numeric_limits<int>::max())  // it once wrapped: 4294967297 ran one repeat
      rd.fail(r, fmt::format("'repeats' = {} is out of range", r->as_integer()->get()));
    o.repeats = int(r->as_integer()->get());
  }
  return o;
}

// A range bound as a double: finite (a range of [-inf, inf] holds whatever is measured, and JSON cannot carry it into
// the receipt), and an integer only where a double holds it exactly.
double bound(const Reader& rd, const toml::node& n) {
  if (const auto* i = n.as_integer()) {
    constexpr int64_t exact = int64_t(1) << 53;
    if (i->get() > exact || i->get() < -exact) rd.fail(&n, fmt::format("range bound {} is not exactly a double", i->get()));
    return double(i->get());
  }
  const double v = n.as_floating_point()->get();
  if (!std::isfinite(v)) rd.fail(&n, fmt::format("range bound {} is not finite", v));
  return v;
}

receipt::Prediction read_prediction(const Reader& rd, const toml::table& t, const bench::Options& instrument,
                                    const std::set<std::string>& problems) {
  rd.only_keys(t, {"id", "problem", "dtype", "layout", "metric", "arm", "baseline", "range", "falsifier"}, "[[prediction]]");
  receipt::Prediction p;
  p.id = rd.text(t, "id", "[[prediction]]");
  p.problem = rd.text(t, "problem", "[[prediction]]");
  if (!problems.count(p.problem)) rd.fail(t.get("problem"), fmt::format("problem '{}' is not in the instrument", p.problem));
  const DType d = rd.parsed(t.get("dtype"), [&] { return parse_dtype(rd.text(t, "dtype", "[[prediction]]")); });
  if (std::find(instrument.dtypes.begin(), instrument.dtypes.end(), d) == instrument.dtypes.end())
    rd.fail(t.get("dtype"), fmt::format("dtype '{}' is not among the instrument's", to_string(d)));
  p.dtype = std::string(to_string(d));
  const Layout l = rd.parsed(t.get("layout"), [&] { return parse_layout(rd.text(t, "layout", "[[prediction]]")); });
  if (std::find(instrument.layouts.begin(), instrument.layouts.end(), l) == instrument.layouts.end())
    rd.fail(t.get("layout"), fmt::format("layout '{}' is not among the instrument's", to_string(l)));
  p.layout = std::string(to_string(l));
  p.metric = rd.text(t, "metric", "[[prediction]]");
  const auto& metrics = receipt::prediction_metrics();
  if (std::find(metrics.begin(), metrics.end(), p.metric) == metrics.end())
    rd.fail(t.get("metric"), fmt::format("unknown metric '{}' (known: {})", p.metric, fmt::join(metrics, ", ")));
  auto in_arms = [&](const std::string& a) { return std::find(instrument.arms.begin(), instrument.arms.end(), a) != instrument.arms.end(); };
  p.arm = rd.text(t, "arm", "[[prediction]]");
  if (!in_arms(p.arm)) rd.fail(t.get("arm"), fmt::format("arm '{}' is not among the instrument's arms", p.arm));
  p.baseline = rd.text(t, "baseline", "[[prediction]]", p.metric == "speedup");
  if (p.metric == "speedup" && (!in_arms(p.baseline) || p.baseline == p.arm))
    rd.fail(t.get("baseline"), fmt::format("baseline '{}' must be another of the instrument's arms", p.baseline));
  if (p.metric != "speedup" && !p.baseline.empty())
    rd.fail(t.get("baseline"), "'baseline' belongs only to a speedup prediction");
  const toml::array* range = t["range"].as_array();
  if (!range || range->size() != 2 || !(*range)[0].is_number() || !(*range)[1].is_number())
    rd.fail(range ? static_cast<const toml::node*>(range) : &t, "'range' must be [low, high]");
  p.low = bound(rd, (*range)[0]);
  p.high = bound(rd, (*range)[1]);
  if (p.low > p.high) rd.fail(range, fmt::format("range [{}, {}] is inverted", p.low, p.high));
  p.falsifier = rd.text(t, "falsifier", "[[prediction]]");
  return p;
}

}  // namespace

ProtocolFile parse_protocol(std::string_view text, const std::string& path) {
  const Reader rd(path);
  // toml++ 3.3 reaches __builtin_unreachable() on some characters past ASCII (U+00A1 to U+0499 in a key, found by
  // the fuzzer: tests/fuzz/regressions/protocol/): a protocol file is ASCII.
  if (const auto bad = std::find_if(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
      bad != text.end())
    throw Error(fmt::format("{}:{}: a protocol file is ASCII; this line has a byte 0x{:02x}", path,
                            1 + std::count(text.begin(), bad, '\n'), static_cast<unsigned char>(*bad)));
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("{}:{}: {}", path, e.source().begin.line, e.description()));
  } catch (const TomlAssertion& e) {
    throw Error(fmt::format("{}: not TOML the parser can read (it failed its own check '{}')", path, e.what));
  }
  rd.only_keys(root, {"question", "instrument", "prediction"}, "the protocol");
  ProtocolFile pf;
  pf.path = path;
  pf.question = rd.text(root, "question", "the protocol");
  pf.instrument = read_instrument(rd, root);
  std::set<std::string> problems;
  for (const std::string& suite : pf.instrument.suites)
    for (const SuiteEntry& e : rd.parsed(root.get("instrument"), [&] { return load_suite(suite); }).entries)
      if (pf.instrument.only.empty() ||
          std::find(pf.instrument.only.begin(), pf.instrument.only.end(), e.name) != pf.instrument.only.end())
        problems.insert(e.name);
  const toml::array* list = root["prediction"].as_array();
  if (!list || list->empty()) rd.fail(&root, "a protocol needs at least one [[prediction]]");
  std::set<std::string> ids;
  for (const toml::node& n : *list) {
    if (!n.is_table()) rd.fail(&n, "each [[prediction]] must be a table");
    receipt::Prediction p = read_prediction(rd, *n.as_table(), pf.instrument, problems);
    if (!ids.insert(p.id).second) rd.fail(&n, fmt::format("duplicate prediction id '{}'", p.id));
    pf.predictions.push_back(std::move(p));
  }
  return pf;
}

ProtocolFile load_protocol(const std::string& path) { return parse_protocol(files::read(path), path); }

namespace {

// Runs a git command; its output, or nullopt when git fails.
std::optional<std::string> git(const std::string& args) {
  FILE* pipe = popen(("git " + args + " 2>/dev/null").c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  char buf[256];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  if (pclose(pipe) != 0) return std::nullopt;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string frozen_commit(const ProtocolFile& pf) {
  std::vector<std::string> files{pf.path};
  files.insert(files.end(), pf.instrument.suites.begin(), pf.instrument.suites.end());
  std::string all;
  for (const std::string& path : files) {
    const std::string what = path == pf.path ? "the protocol file" : "a suite the protocol reads";
    if (!git("ls-files --error-unmatch -- " + quoted(path)))
      throw Error(fmt::format("{}: {} is not committed (commit it before the run it describes)", path, what));
    const auto status = git("status --porcelain -- " + quoted(path));
    if (!status) throw Error(fmt::format("{}: git cannot say whether {} has changes", path, what));
    if (!status->empty())
      throw Error(fmt::format("{}: {} has uncommitted changes (commit them before the run)", path, what));
    all += " " + quoted(path);
  }
  // The newest commit that touched any of them: all are as it left them.
  const auto commit = git("log -1 --format=%H --" + all);
  if (!commit || commit->empty())
    throw Error(fmt::format("{}: git finds no commit that holds the protocol's files", pf.path));
  return *commit;
}

namespace {

// Whether the protocol's files read now as they did at `commit`: a later commit that touched them and was reverted,
// or a comment put back, leaves the plan the run's.
bool unchanged_since(const ProtocolFile& pf, const std::string& commit) {
  if (commit.size() < 7 || commit.size() > 40 || commit.find_first_not_of("0123456789abcdef") != std::string::npos)
    return false;  // a receipt's field, not a commit id: nothing git is handed
  std::string all = quoted(pf.path);
  for (const std::string& suite : pf.instrument.suites) all += " " + quoted(suite);
  return git("diff --quiet " + commit + " -- " + all).has_value();
}

}  // namespace

std::optional<std::vector<Problem>> planned_problems(const receipt::Preregistration& pre) {
  try {
    const ProtocolFile pf = load_protocol(pre.path);
    // Files changed since the run (or never committed) plan other problems than the run's: nothing to hold it to.
    frozen_commit(pf);  // throws where one is not committed or has uncommitted changes
    if (!unchanged_since(pf, pre.commit)) return std::nullopt;
    return bench::planned_problems(pf.instrument);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace tilewise::protocol
