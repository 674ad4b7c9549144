// The module sculpt._sculpt: the library call (sculpt.h) and sculpt::load (executable.h) for
// Python. sculpt/__init__.py builds the user's interface on it: arrays in and out, shapes and
// dtypes checked there.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "explorer/sculpt.h"

namespace py = pybind11;

namespace {

const char* kind_name(sculpt::Error::Kind kind) {
  switch (kind) {
    case sculpt::Error::Kind::usage:
      return "usage";
    case sculpt::Error::Kind::input:
      return "input";
    case sculpt::Error::Kind::environment:
      return "environment";
    case sculpt::Error::Kind::interrupted:
      return "interrupted";
    case sculpt::Error::Kind::nothing_valid:
      return "nothing_valid";
  }
  return "usage";
}

const char* kind_name(sculpt::Parameter::Kind kind) {
  switch (kind) {
    case sculpt::Parameter::Kind::size:
      return "size";
    case sculpt::Parameter::Kind::scalar:
      return "scalar";
    case sculpt::Parameter::Kind::array:
      return "array";
  }
  return "array";
}

const char* role_name(sculpt::Parameter::Role role) {
  switch (role) {
    case sculpt::Parameter::Role::input:
      return "input";
    case sculpt::Parameter::Role::output:
      return "output";
    case sculpt::Parameter::Role::inout:
      return "inout";
  }
  return "input";
}

/// sculpt::search on a thread of its own while this one, holding the GIL only for that, looks
/// for a Ctrl-C every tenth of a second: Python runs its signal handlers on the main thread
/// only, and a search can go on for minutes. A Ctrl-C stops the search as its budget would,
/// then raises KeyboardInterrupt.
sculpt::Kernel search_interruptibly(const std::string& kernel, const std::string& sizes,
                                    sculpt::SearchOptions options) {
  std::atomic<bool> stop = false;
  options.stop_requested = [&stop] { return stop.load(); };
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::optional<sculpt::Kernel> found;
  std::exception_ptr failed;
  std::optional<py::error_already_set> interrupt;
  {
    py::gil_scoped_release released;
    std::thread searching([&] {
      try {
        found = sculpt::search(kernel, sizes, options);
      } catch (...) {
        failed = std::current_exception();
      }
      const std::lock_guard lock(mutex);
      done = true;
      ended.notify_all();
    });
    std::unique_lock lock(mutex);
    while (!ended.wait_for(lock, std::chrono::milliseconds(100), [&] { return done; })) {
      if (interrupt) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire held;
        if (PyErr_CheckSignals() != 0) {
          interrupt.emplace();  // takes the exception the handler raised
          stop = true;
        }
      }
      lock.lock();
    }
    lock.unlock();
    searching.join();
  }
  if (interrupt) throw std::move(*interrupt);
  if (failed) std::rethrow_exception(failed);
  return *found;
}

}  // namespace

PYBIND11_MODULE(_sculpt, m) {
  m.doc() = "sculpt's library call and loaded kernels; use the package `sculpt`, not this module.";

  static py::exception<sculpt::Error> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const sculpt::Error& e) {
      py::object raised = py::handle(error.ptr())(e.what());
      raised.attr("kind") = kind_name(e.kind());
      PyErr_SetObject(error.ptr(), raised.ptr());
    }
  });

  py::class_<sculpt::Parameter>(m, "Parameter")
      .def_readonly("name", &sculpt::Parameter::name)
      .def_property_readonly("kind", [](const sculpt::Parameter& p) { return kind_name(p.kind); })
      .def_readonly("type", &sculpt::Parameter::type)
      .def_property_readonly("role", [](const sculpt::Parameter& p) { return role_name(p.role); })
      .def_property_readonly(
          "shape", [](const sculpt::Parameter& p) { return py::tuple(py::cast(p.shape)); })
      .def_property_readonly(
          "strides", [](const sculpt::Parameter& p) { return py::tuple(py::cast(p.strides)); })
      .def_readonly("elements", &sculpt::Parameter::elements)
      .def_readonly("value", &sculpt::Parameter::value);

  py::class_<sculpt::Kernel>(m, "Kernel")
      .def_readonly("kernel", &sculpt::Kernel::kernel)
      .def_readonly("sizes", &sculpt::Kernel::sizes)
      .def_readonly("device", &sculpt::Kernel::device)
      .def_readonly("language", &sculpt::Kernel::language)
      .def_readonly("code", &sculpt::Kernel::code)
      .def_readonly("entry", &sculpt::Kernel::entry)
      .def_property_readonly("launch",
                             [](const sculpt::Kernel& k) {
                               py::dict launch;
                               launch["grid"] = py::tuple(py::cast(k.launch.grid));
                               launch["block"] = py::tuple(py::cast(k.launch.block));
                               launch["shared_bytes"] = k.launch.shared_bytes;
                               return launch;
                             })
      .def_readonly("parameters", &sculpt::Kernel::parameters)
      .def_readonly("time_ns", &sculpt::Kernel::time_ns)
      .def_property_readonly("run_dir", [](const sculpt::Kernel& k) { return k.run_dir.string(); })
      .def_property_readonly("log", [](const sculpt::Kernel& k) { return k.log.string(); })
      .def_readonly("id", &sculpt::Kernel::id)
      .def_readonly("from_cache", &sculpt::Kernel::from_cache);

  py::class_<sculpt::Definition>(m, "Definition")
      .def_readonly("text", &sculpt::Definition::text)
      .def_readonly("name", &sculpt::Definition::name)
      .def_readonly("sizes", &sculpt::Definition::sizes)
      .def_readonly("description", &sculpt::Definition::description);

  m.def(
      "search",
      [](const std::string& kernel, const std::string& sizes, const std::string& definition,
         const std::string& device, const std::string& algorithm, std::optional<std::int64_t> evals,
         std::optional<double> budget, std::uint64_t seed, int threads,
         const std::string& cache_dir, bool use_cache, const std::vector<std::string>& start_from,
         bool start_from_cache, bool progress) {
        sculpt::SearchOptions options;
        options.definition = definition;
        options.device = device;
        options.algorithm = algorithm;
        // A budget alone searches until it runs out, as `sculpt search --budget` does.
        if (evals) options.evals = *evals;
        if (budget && !evals) options.evals = std::numeric_limits<std::int64_t>::max();
        options.budget_s = budget;
        options.seed = seed;
        options.threads = threads;
        options.cache_dir = cache_dir;
        options.use_cache = use_cache;
        for (const std::string& path : start_from) options.start_from.emplace_back(path);
        options.start_from_cache = start_from_cache;
        options.show_progress = progress;
        return search_interruptibly(kernel, sizes, std::move(options));
      },
      py::arg("kernel"), py::arg("sizes"), py::arg("definition"), py::arg("device"),
      py::arg("algorithm"), py::arg("evals"), py::arg("budget"), py::arg("seed"),
      py::arg("threads"), py::arg("cache_dir"), py::arg("use_cache"), py::arg("start_from"),
      py::arg("start_from_cache"), py::arg("progress"));

  m.def("define", &sculpt::define, py::arg("text"), py::arg("name"), py::arg("file"));

  py::class_<sculpt::Executable>(m, "Executable")
      .def(
          "run",
          // Each argument: (address, bytes, writable) for an array, a number for a scalar.
          [](const sculpt::Executable& executable, const py::list& arguments,
             std::uintptr_t stream) {
            std::vector<sculpt::Argument> converted;
            converted.reserve(arguments.size());
            for (const py::handle& argument : arguments) {
              if (py::isinstance<py::tuple>(argument)) {
                const auto [address, bytes, writable] =
                    argument.cast<std::tuple<std::uintptr_t, std::size_t, bool>>();
                void* data = reinterpret_cast<void*>(address);
                const sculpt::Argument array =
                    writable ? sculpt::Argument::buffer(data, bytes)
                             : sculpt::Argument::buffer(static_cast<const void*>(data), bytes);
                converted.push_back(array);
              } else if (py::isinstance<py::int_>(argument)) {
                converted.emplace_back(argument.cast<std::int32_t>());
              } else {
                converted.emplace_back(argument.cast<double>());
              }
            }
            py::gil_scoped_release released;
            executable.run(converted, reinterpret_cast<void*>(stream));
          },
          py::arg("arguments"), py::arg("stream") = 0);

  m.def(
      "load",
      [](const sculpt::Kernel& kernel, int gpu, const std::string& cuda_library) {
        sculpt::LoadOptions options;
        options.gpu = gpu;
        options.cuda_library = cuda_library;
        py::gil_scoped_release released;
        return sculpt::load(kernel, options);
      },
      py::arg("kernel"), py::arg("gpu") = 0, py::arg("cuda_library") = "libcuda.so.1");
}
