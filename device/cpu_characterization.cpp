#include "device/cpu_characterization.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <tuple>

#include "device/fork_server.h"
#include "device/problem_data.h"
#include "device/process.h"

namespace sculpt::device {
namespace {

// The microbenchmarks, compiled like a candidate. Each one times sections of `passes` passes on
// a team of OpenMP threads, raising the passes until a section lasts half the target, and keeps
// the fastest. A section lasts the CPU time of the team's slowest thread: time the threads spent
// waiting for a core that other processes held is not counted, so that a busy machine (a test
// suite running beside, another guest of a virtual machine) does not lower the rates.
constexpr const char* kBenchmarks = R"c(
#include <omp.h>
#include <stdlib.h>
#include <time.h>

// The compiler must assume the asm reads `value`, so it computes it.
#define KEEP(value) __asm__ volatile("" : : "r"(&(value)) : "memory")
// The compiler must assume memory changed: each pass loads and stores again.
#define CLOBBER() __asm__ volatile("" : : : "memory")

int sculpt_simd_bytes(void) {
#if defined(__AVX512F__)
  return 64;
#elif defined(__AVX__)
  return 32;
#elif defined(__SSE__) || defined(__ARM_NEON) || defined(__ALTIVEC__)
  return 16;
#else
  return 4;
#endif
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// The CPU time of the calling thread.
static double thread_cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Written by the master thread between barriers (section_time by each thread, in a critical
// section), read by the team.
static double benchmark_start, section_time, benchmark_time;

static void team_start(void) {
#pragma omp barrier
#pragma omp master
  section_time = 0;
#pragma omp barrier
}

// The CPU time `run` took on the team's slowest thread, and the wall time since the benchmark
// started: the same in every thread, so that the team takes the same decisions.
static double team_time(double own) {
#pragma omp critical
  if (own > section_time) section_time = own;
#pragma omp barrier
#pragma omp master
  benchmark_time = now() - benchmark_start;
#pragma omp barrier
  double t = section_time;
#pragma omp barrier
  return t;
}

// Inside a parallel region: the fastest time per pass of `run` on every thread of the team,
// over `reps` sections of at least target / 2 seconds of CPU time, or fewer once `budget`
// seconds of wall time went by.
static double seconds_per_pass(void (*run)(void*, long), void* state, double target, int reps,
                               double budget) {
  long passes = 1;
  double best = 1e300;
#pragma omp master
  benchmark_start = now();
  for (int r = 0; r < reps && (r == 0 || benchmark_time < budget);) {
    team_start();
    double start = thread_cpu_now();
    run(state, passes);
    double t = team_time(thread_cpu_now() - start);
    // Too short to time well: as many passes as the target takes at this pace (at least twice
    // as many, at most 1024 times), and no section counted.
    if (t < target / 2 && passes < (1L << 40)) {
      double grow = t > 0 ? target / t : 1024;
      passes *= grow < 2 ? 2 : grow > 1024 ? 1024 : (long)grow;
      continue;
    }
    if (t / (double)passes < best) best = t / (double)passes;
    ++r;
  }
  return best;
}

// Independent chains of FMAs, enough of them to cover the latency of every FMA unit, in
// vectors of 16, 32 and 64 bytes (whichever -march=native makes fastest). Ten fit in the
// 16 registers of AVX2 beside the two operands.
#define FMA_STEPS 100
#define FMA_CHAINS 10
#define FMA_PASSES(BYTES)                                                \
  typedef float fma##BYTES __attribute__((vector_size(BYTES)));          \
  static void fma_passes_##BYTES(void* state, long passes) {             \
    const float* f = state;                                              \
    fma##BYTES m = {0}, a = {0}, acc[FMA_CHAINS];                        \
    m += f[0];                                                           \
    a += f[1];                                                           \
    for (int j = 0; j < FMA_CHAINS; ++j) acc[j] = a * (float)(j + 1);    \
    for (long p = 0; p < passes; ++p)                                    \
      for (int i = 0; i < FMA_STEPS; ++i)                                \
        for (int j = 0; j < FMA_CHAINS; ++j) acc[j] = acc[j] * m + a;    \
    fma##BYTES sum = acc[0];                                             \
    for (int j = 1; j < FMA_CHAINS; ++j) sum += acc[j];                  \
    KEEP(sum);                                                           \
  }
FMA_PASSES(16)
FMA_PASSES(32)
FMA_PASSES(64)

// fp32 FMAs per second of `threads` threads together.
double sculpt_fma_rate(int bytes, int threads, double target, int reps, double budget) {
  void (*run)(void*, long) =
      bytes == 64 ? fma_passes_64 : bytes == 32 ? fma_passes_32 : fma_passes_16;
  double per_pass = 0;
  int team = 0;
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    // Converges to a fixed point: no overflow, no subnormals.
    float state[2] = {0.999f, 0.001f};
    double t = seconds_per_pass(run, state, target, reps, budget);
#pragma omp master
    {
      per_pass = t;
      team = omp_get_num_threads();
    }
  }
  return (double)team * FMA_STEPS * FMA_CHAINS * (bytes / 4) / per_pass;
}

typedef float vec __attribute__((vector_size(64)));
typedef struct {
  vec* data;
  size_t n;  // a multiple of 8
} Chunk;

static void read_passes(void* state, long passes) {
  const Chunk* c = state;
  vec a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
  for (long p = 0; p < passes; ++p) {
    const vec* d = c->data;
    for (size_t i = 0; i < c->n; i += 8) {
      a0 += d[i];
      a1 += d[i + 1];
      a2 += d[i + 2];
      a3 += d[i + 3];
      a4 += d[i + 4];
      a5 += d[i + 5];
      a6 += d[i + 6];
      a7 += d[i + 7];
    }
    CLOBBER();
  }
  vec sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  KEEP(sum);
}

static void write_passes(void* state, long passes) {
  const Chunk* c = state;
  vec v = {0};
  v += 1.0f;
  for (long p = 0; p < passes; ++p) {
    vec* d = c->data;
    for (size_t i = 0; i < c->n; ++i) d[i] = v;
    CLOBBER();
  }
}

// The first half into the second: the chunk's bytes are each read or written once a pass.
static void copy_passes(void* state, long passes) {
  const Chunk* c = state;
  const size_t half = c->n / 2;
  for (long p = 0; p < passes; ++p) {
    vec* d = c->data;
    for (size_t i = 0; i < half; ++i) d[half + i] = d[i];
    CLOBBER();
  }
}

// Bytes per second of `threads` threads together, each on a chunk of `bytes` of its own
// (allocated and first touched by its thread); 0 when memory ran out. Kind 0 reads, 1 writes,
// 2 copies.
double sculpt_memory_rate(int kind, size_t bytes, int threads, double target, int reps,
                          double budget) {
  void (*run)(void*, long) = kind == 0 ? read_passes : kind == 1 ? write_passes : copy_passes;
  double per_pass = 0;
  int team = 0, failed = 0;
  omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
  {
    Chunk c = {aligned_alloc(4096, (bytes + 4095) / 4096 * 4096), bytes / sizeof(vec)};
    if (c.data == NULL) {
#pragma omp atomic
      ++failed;
    }
#pragma omp barrier
    if (!failed) {
      // Written before it is read: pages never written all read as the same zero page.
      write_passes(&c, 1);
      double t = seconds_per_pass(run, &c, target, reps, budget);
#pragma omp master
      {
        per_pass = t;
        team = omp_get_num_threads();
      }
    }
    free(c.data);
  }
  return failed ? 0 : (double)team * (double)bytes / per_pass;
}
)c";

// An empty kernel: GCC drops a parallel region with nothing in it, not one with an asm.
constexpr const char* kEmptyKernel = R"c(
void candidate(void** params) {
  (void)params;
#pragma omp parallel
  __asm__ volatile("");
}
)c";

constexpr std::array<int, 3> kVectorBytes = {16, 32, 64};
enum MemoryKind { kRead, kWrite, kCopy, kKinds };
constexpr int kLevels = 4;
constexpr std::array<const char*, kLevels> kLevelNames = {"L1", "L2", "L3", "DRAM"};

/// What the benchmarks' process sends back through its pipe: plain data.
struct Measurements {
  int simd_bytes = 0;
  std::array<double, kVectorBytes.size()> fma_one_core{};
  std::array<double, kVectorBytes.size()> fma_all_cores{};
  std::array<std::array<double, kKinds>, kLevels> memory{};
  char error[512] = {};
};

/// How long and how often each benchmark is timed.
struct Timing {
  double section_seconds;
  int sections;           ///< per benchmark and round
  double budget_seconds;  ///< wall time per benchmark and round; one section is always timed
  /// Every benchmark runs once a round, on memory of its own: the fastest round is kept, so
  /// that a burst of load from another process, or an unlucky placement of the pages, is not.
  int rounds;
  /// Fresh processes running the empty kernel, each 10 to 100 times, while its runs take
  /// less than the floor budget together.
  int floor_processes;
  std::chrono::milliseconds floor_budget;
};

Timing timing_of(bool quick) {
  // Short sections, many of them: the fastest is the one no other process disturbed.
  if (quick) {
    return {.section_seconds = 0.5e-3,
            .sections = 5,
            .budget_seconds = 0.03,
            .rounds = 1,
            .floor_processes = 2,
            .floor_budget = std::chrono::milliseconds(10)};
  }
  return {.section_seconds = 2e-3,
          .sections = 25,
          .budget_seconds = 0.1,
          .rounds = 4,
          .floor_processes = 30,
          .floor_budget = std::chrono::milliseconds(100)};
}

/// CPU time of `cpus` from /proc/stat, in seconds: busy (steal included: another virtual
/// machine ran) and in all.
struct CpuTimes {
  double busy = 0;
  double total = 0;
};

CpuTimes cpu_times(const std::vector<int>& cpus) {
  CpuTimes times;
  std::ifstream stat("/proc/stat");
  const double tick = 1.0 / static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
  for (std::string line; std::getline(stat, line);) {
    int cpu = -1;
    // cpuN user nice system idle iowait irq softirq steal
    std::array<double, 8> t{};
    if (std::sscanf(line.c_str(), "cpu%d %lf %lf %lf %lf %lf %lf %lf %lf", &cpu, &t[0], &t[1],
                    &t[2], &t[3], &t[4], &t[5], &t[6], &t[7]) != 9 ||
        std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) {
      continue;
    }
    const double idle = t[3] + t[4];
    const double total = t[0] + t[1] + t[2] + idle + t[5] + t[6] + t[7];
    times.busy += (total - idle) * tick;
    times.total += total * tick;
  }
  return times;
}

/// CPU time of this process and of its children that ended, in seconds.
double own_cpu_seconds() {
  double seconds = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    for (const timeval& t : {usage.ru_utime, usage.ru_stime}) {
      seconds += static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    }
  }
  return seconds;
}

std::string read_word(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

/// "32K", "1024K", "8M": bytes; 0 when malformed.
std::int64_t parse_size(const std::string& text) {
  std::size_t end = 0;
  std::int64_t value = 0;
  try {
    value = std::stoll(text, &end);
  } catch (const std::exception&) {
    return 0;
  }
  const std::string unit = text.substr(end);
  if (unit.empty()) return value;
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  if (unit == "G") return value << 30;
  return 0;
}

struct Cache {
  int level = 0;
  std::int64_t bytes = 0;
  std::string shared_cpus;  ///< names the cache instance
};

/// The data and unified caches of `cpu`, from sysfs.
std::vector<Cache> caches_of(int cpu) {
  std::vector<Cache> caches;
  const std::filesystem::path dir = fmt::format("/sys/devices/system/cpu/cpu{}/cache", cpu);
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (!entry.path().filename().string().starts_with("index")) continue;
    if (read_word(entry.path() / "type") == "Instruction") continue;
    Cache cache;
    cache.level = std::atoi(read_word(entry.path() / "level").c_str());
    cache.bytes = parse_size(read_word(entry.path() / "size"));
    cache.shared_cpus = read_word(entry.path() / "shared_cpu_list");
    if (cache.level > 0 && cache.bytes > 0) caches.push_back(cache);
  }
  return caches;
}

void read_cache_sizes(const std::vector<int>& cpus, CpuCharacteristics& c) {
  for (const Cache& cache : caches_of(cpus.front())) {
    if (cache.level == 1) c.l1_bytes = cache.bytes;
    if (cache.level == 2) c.l2_bytes = cache.bytes;
  }
  // The L3 of the whole processor: each instance once (several on many-core parts, one per
  // chiplet or socket).
  std::map<std::string, std::int64_t> l3;
  for (int cpu : cpus) {
    for (const Cache& cache : caches_of(cpu)) {
      if (cache.level == 3) l3[cache.shared_cpus] = cache.bytes;
    }
  }
  for (const auto& [shared, bytes] : l3) c.l3_bytes += bytes;
  // Some virtual machines have no cache folder in sysfs: the C library then reads the sizes
  // from the processor (cpuid on x86).
  if (c.l1_bytes == 0) c.l1_bytes = std::max<long>(sysconf(_SC_LEVEL1_DCACHE_SIZE), 0);
  if (c.l2_bytes == 0) c.l2_bytes = std::max<long>(sysconf(_SC_LEVEL2_CACHE_SIZE), 0);
  if (c.l3_bytes == 0) c.l3_bytes = std::max<long>(sysconf(_SC_LEVEL3_CACHE_SIZE), 0);
  if (c.l1_bytes == 0 || c.l2_bytes == 0) {
    throw DeviceError(fmt::format(
        "cpu characterization: neither /sys/devices/system/cpu/cpu{}/cache nor the C library "
        "gives the level 1 and 2 data caches",
        cpus.front()));
  }
  // No L3 (some Arm parts): the L2s together play its part.
  if (c.l3_bytes == 0) c.l3_bytes = c.l2_bytes * static_cast<std::int64_t>(cpus.size());
}

/// The value of /proc/cpuinfo's "model name : AMD EPYC" line, as the compiler read it.
std::string model_name(const std::string& line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string::npos) return {};
  const std::size_t start = line.find_first_not_of(" \t", colon + 1);
  return start == std::string::npos ? std::string() : line.substr(start);
}

std::filesystem::path compile_or_throw(CCompiler& compiler, const std::string& source,
                                       std::string_view what) {
  CCompiler::Result result = compiler.compile(source);
  if (!result.object) {
    throw DeviceError(fmt::format("cpu characterization: '{}' cannot compile {}: {}",
                                  compiler.compiler(), what, result.log));
  }
  return *result.object;
}

/// Working sets of each core, in bytes: multiples of 512 (eight 64-byte vectors).
std::array<std::int64_t, kLevels> working_sets(const CpuCharacteristics& c) {
  const std::int64_t cores = c.cores;
  // Four times the L3, so that it holds a small part; within a quarter of the memory.
  std::int64_t dram = std::max<std::int64_t>(4 * c.l3_bytes, std::int64_t{64} << 20);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) dram = std::min<std::int64_t>(dram, std::int64_t{pages} * page / 4);
  std::array<std::int64_t, kLevels> sets = {c.l1_bytes / 2, c.l2_bytes / 2, c.l3_bytes / 2 / cores,
                                            dram / cores};
  for (std::int64_t& set : sets) set = std::max<std::int64_t>(512, set / 512 * 512);
  return sets;
}

void write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

/// In the benchmarks' process: loads them and runs every one.
Measurements run_benchmarks(const std::filesystem::path& object,
                            const std::array<std::int64_t, kLevels>& sets, int cores,
                            const Timing& timing) {
  Measurements m;
  void* handle = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  const auto symbol = [&](const char* name) { return handle ? dlsym(handle, name) : nullptr; };
  auto* simd_bytes = reinterpret_cast<int (*)()>(symbol("sculpt_simd_bytes"));
  auto* fma_rate =
      reinterpret_cast<double (*)(int, int, double, int, double)>(symbol("sculpt_fma_rate"));
  auto* memory_rate = reinterpret_cast<double (*)(int, std::size_t, int, double, int, double)>(
      symbol("sculpt_memory_rate"));
  if (simd_bytes == nullptr || fma_rate == nullptr || memory_rate == nullptr) {
    const char* why = dlerror();
    std::snprintf(m.error, sizeof m.error, "cannot load the microbenchmarks: %s",
                  why != nullptr ? why : "a symbol is missing");
    return m;
  }
  const double section = timing.section_seconds, budget = timing.budget_seconds;
  m.simd_bytes = simd_bytes();
  for (int round = 0; round < timing.rounds; ++round) {
    for (std::size_t v = 0; v < kVectorBytes.size(); ++v) {
      m.fma_one_core[v] = std::max(m.fma_one_core[v],
                                   fma_rate(kVectorBytes[v], 1, section, timing.sections, budget));
      m.fma_all_cores[v] = std::max(
          m.fma_all_cores[v], fma_rate(kVectorBytes[v], cores, section, timing.sections, budget));
    }
    for (int level = 0; level < kLevels; ++level) {
      for (int kind = 0; kind < kKinds; ++kind) {
        const double rate = memory_rate(kind, static_cast<std::size_t>(sets[level]), cores, section,
                                        timing.sections, budget);
        if (rate == 0) {
          std::snprintf(m.error, sizeof m.error,
                        "cannot allocate %lld bytes on each of %d cores for the %s benchmark",
                        static_cast<long long>(sets[level]), cores, kLevelNames[level]);
          return m;
        }
        m.memory[level][kind] = std::max(m.memory[level][kind], rate);
      }
    }
  }
  return m;
}

/// Runs the benchmarks in a process of their own, so that this one never loads OpenMP: the CPU
/// device's servers, forked from it later, would inherit its threads' state without the threads.
Measurements measure(const std::filesystem::path& object,
                     const std::array<std::int64_t, kLevels>& sets, int cores,
                     const Timing& timing) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw DeviceError(fmt::format("cpu characterization: pipe: {}", std::strerror(errno)));
  }
  const int kept[] = {fds[1]};
  pid_t pid = -1;
  try {
    pid = fork_server_process(
        kept,
        [&] {
          const Measurements m = run_benchmarks(object, sets, cores, timing);
          write_all(fds[1], &m, sizeof m);
        },
        "cpu");
  } catch (const DeviceError&) {
    close(fds[0]);
    close(fds[1]);
    throw;
  }
  close(fds[1]);
  Measurements m;
  std::size_t received = 0;
  // Far beyond the full mode's half minute: only a hung process takes that long.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (received < sizeof m) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd poll_fd{.fd = fds[0], .events = POLLIN, .revents = 0};
    const int ready =
        poll(&poll_fd, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    const ssize_t n = read(fds[0], reinterpret_cast<char*>(&m) + received, sizeof m - received);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received += static_cast<std::size_t>(n);
  }
  close(fds[0]);
  const bool timed_out = received < sizeof m && std::chrono::steady_clock::now() >= deadline;
  if (timed_out) kill_and_reap(pid);
  int status = 0;
  // The pipe closed early only as the process ended: waiting for it is short.
  while (!timed_out && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (received < sizeof m) {
    const std::string how = timed_out ? "took longer than 5 minutes; killed"
                            : WIFSIGNALED(status)
                                ? "was killed by " + describe_signal(WTERMSIG(status))
                                : fmt::format("exited with status {} early", WEXITSTATUS(status));
    throw DeviceError(fmt::format("cpu characterization: the microbenchmarks' process {}", how));
  }
  if (m.error[0] != '\0') throw DeviceError(fmt::format("cpu characterization: {}", m.error));
  return m;
}

/// The fastest run of an empty kernel, as the CPU device runs and times candidates: a fresh
/// child of a ForkServer per batch of runs, each batch after its warm-up.
std::pair<double, int> launch_floor(const std::filesystem::path& object, const Timing& timing) {
  auto problem = std::make_shared<Problem>();
  problem->name = "empty";
  problem->params = {ArrayParam{.name = "x", .type = ElementType::f32, .count = 1}};
  problem->reference = [](const Arguments&) {};
  const ProblemData data(*problem);
  ForkServer server(data);
  RunPlan plan;
  plan.min_runs = 10;
  plan.max_runs = 100;
  plan.budget = timing.floor_budget;
  double fastest = std::numeric_limits<double>::infinity();
  int runs = 0;
  for (int p = 0; p < timing.floor_processes; ++p) {
    const RunOutcome outcome = server.run(object, "candidate", plan);
    if (outcome.check != Check::ok) {
      throw DeviceError(fmt::format("cpu characterization: the empty kernel failed ({}): {}",
                                    to_string(outcome.check), outcome.message));
    }
    for (std::int64_t ns : outcome.run_ns) fastest = std::min(fastest, static_cast<double>(ns));
    runs += static_cast<int>(outcome.run_ns.size());
  }
  return {fastest, runs};
}

}  // namespace

CpuCharacteristics characterize_cpu(const CpuCharacterizationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Timing timing = timing_of(options.quick);
  CCompiler compiler(options.compiler, options.flags, options.cache_dir,
                     CpuEvaluatorOptions{}.compile_timeout, options.flags_if_accepted);
  const std::filesystem::path benchmarks =
      compile_or_throw(compiler, kBenchmarks, "the microbenchmarks");
  const std::filesystem::path empty = compile_or_throw(compiler, kEmptyKernel, "the empty kernel");

  CpuCharacteristics c;
  c.model_name = model_name(processor_model_line());
  const std::vector<int> cpus = allowed_cpus();
  c.cores = static_cast<int>(cpus.size());
  c.identity = cpu_identity();
  read_cache_sizes(cpus, c);
  const std::array<std::int64_t, kLevels> sets = working_sets(c);

  const CpuTimes times_before = cpu_times(cpus);
  const double own_before = own_cpu_seconds();
  const Measurements m = measure(benchmarks, sets, c.cores, timing);
  c.simd_bytes = m.simd_bytes;
  c.fp32_one_core = *std::max_element(m.fma_one_core.begin(), m.fma_one_core.end());
  c.fp32_all_cores = *std::max_element(m.fma_all_cores.begin(), m.fma_all_cores.end());
  c.fp32_per_second = std::max(c.fp32_one_core, c.fp32_all_cores / c.cores);

  const std::array<MemoryLevel*, kLevels> levels = {&c.l1, &c.l2, &c.l3, &c.dram};
  double larger_level = 0;
  for (int level = kLevels - 1; level >= 0; --level) {
    MemoryLevel& l = *levels[level];
    const auto& rates = m.memory[level];
    l.bytes_per_core = sets[level];
    l.read = rates[kRead];
    l.write = rates[kWrite];
    l.copy = rates[kCopy];
    l.bandwidth = std::max({l.read, l.write, l.copy, larger_level});
    larger_level = l.bandwidth;
  }

  std::tie(c.launch_floor_ns, c.launch_runs) = launch_floor(empty, timing);
  const CpuTimes times_after = cpu_times(cpus);
  const double others = times_after.busy - times_before.busy - (own_cpu_seconds() - own_before);
  const double total = times_after.total - times_before.total;
  c.others_busy = total > 0 ? std::clamp(others / total, 0.0, 1.0) : 0;
  c.sections = timing.sections * timing.rounds;
  c.rounds = timing.rounds;
  c.section_seconds = timing.section_seconds;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

std::string cpu_identity() {
  const std::string name = model_name(processor_model_line());
  return fmt::format("{}, {} cores", name.empty() ? "unknown processor" : name,
                     allowed_cpus().size());
}

}  // namespace sculpt::device
