// The peers' C: the includes every peer gets, each library's helpers, and the entry that names
// the problem's parameters.
#include "bench/suite/peer_code.h"

#include <fmt/format.h>

#include <string_view>
#include <variant>

#include "support/check.h"

namespace sculpt::bench {
namespace {

constexpr std::string_view kCommon = R"c(#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends `line` to the file the environment variable `variable` names, when it is set. */
static void report_choice(const char* variable, const char* line) {
  const char* path = getenv(variable);
  FILE* out = path != NULL ? fopen(path, "a") : NULL;
  if (out == NULL) return;
  fprintf(out, "%s\n", line);
  fclose(out);
}
)c";

// OpenBLAS's kernel is reported when the peer is loaded, by the process that runs it: a virtual
// machine may hide the processor's model, and OpenBLAS then picks a kernel of its own.
constexpr std::string_view kOpenBlas = R"c(
/* OpenBLAS through its CBLAS interface. */
#include <cblas.h>

__attribute__((constructor)) static void report_openblas(void) {
  char line[512];
  snprintf(line, sizeof line, "%s (%s)", openblas_get_corename(), openblas_get_config());
  report_choice("SCULPT_SUITE_OPENBLAS_REPORT", line);
}
)c";

// oneDNN's C API as a program calls it: an engine and a stream made once, each primitive made on
// its first call and kept, the caller's buffers wrapped at each call; where a primitive prefers
// a layout of its own (a convolution's blocked layouts), the buffers are reordered to and from
// it at each call, since the caller holds plain arrays.
constexpr std::string_view kOneDnn = R"c(
/* oneDNN through its C API. */
#include <dnnl.h>

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static void dnnl_or_die(dnnl_status_t status, const char* call) {
  if (status == dnnl_success) return;
  fprintf(stderr, "oneDNN: %s: status %d\n", call, (int)status);
  abort();
}
#define DNNL(call) dnnl_or_die(call, #call)

static void open_engine(void) {
  if (engine != NULL) return;
  DNNL(dnnl_engine_create(&engine, dnnl_cpu, 0));
  DNNL(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
}

static dnnl_memory_desc_t plain_desc(int ndims, const dnnl_dim_t* dims, dnnl_format_tag_t tag) {
  dnnl_memory_desc_t md;
  DNNL(dnnl_memory_desc_init_by_tag(&md, ndims, dims, dnnl_f32, tag));
  return md;
}

/* The primitive of an operation, its descriptor in `pd`; the implementation oneDNN chose is
   reported. */
static dnnl_primitive_t make_primitive(const_dnnl_op_desc_t op, const_dnnl_primitive_attr_t attr,
                                       dnnl_primitive_desc_t* pd) {
  open_engine();
  DNNL(dnnl_primitive_desc_create(pd, op, attr, engine, NULL));
  const char* impl = NULL;
  DNNL(dnnl_primitive_desc_query(*pd, dnnl_query_impl_info_str, 0, &impl));
  report_choice("SCULPT_SUITE_ONEDNN_REPORT", impl);
  dnnl_primitive_t primitive;
  DNNL(dnnl_primitive_create(&primitive, *pd));
  return primitive;
}

static dnnl_memory_t make_memory(const dnnl_memory_desc_t* md, void* handle) {
  dnnl_memory_t memory;
  DNNL(dnnl_memory_create(&memory, md, engine, handle));
  return memory;
}

/* A caller's buffer as a primitive takes it: `inner` is `user` where their layouts agree, else
   a memory of the primitive's layout, reached by `reorder`. */
typedef struct {
  dnnl_memory_t user, inner;
  dnnl_primitive_t reorder;
} Operand;

static Operand make_operand(const dnnl_memory_desc_t* user_md, const dnnl_memory_desc_t* chosen,
                            int written) {
  Operand o = {make_memory(user_md, DNNL_MEMORY_NONE), NULL, NULL};
  if (dnnl_memory_desc_equal(user_md, chosen)) {
    o.inner = o.user;
    return o;
  }
  o.inner = make_memory(chosen, DNNL_MEMORY_ALLOCATE);
  dnnl_primitive_desc_t pd;
  if (written) {
    DNNL(dnnl_reorder_primitive_desc_create(&pd, chosen, engine, user_md, engine, NULL));
  } else {
    DNNL(dnnl_reorder_primitive_desc_create(&pd, user_md, engine, chosen, engine, NULL));
  }
  DNNL(dnnl_primitive_create(&o.reorder, pd));
  return o;
}

static void execute(dnnl_primitive_t primitive, int nargs, const dnnl_exec_arg_t* args) {
  DNNL(dnnl_primitive_execute(primitive, stream, nargs, args));
}

static void reorder(const Operand* o, int written) {
  if (o->reorder == NULL) return;
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, written ? o->inner : o->user},
                             {DNNL_ARG_TO, written ? o->user : o->inner}};
  execute(o->reorder, 2, args);
}

/* Wraps `data` in the operand (the caller's buffer may move between calls), reordering an input
   into the primitive's layout. */
static void bind_input(const Operand* o, const void* data) {
  DNNL(dnnl_memory_set_data_handle(o->user, (void*)data));
  reorder(o, 0);
}

static void bind_output(const Operand* o, void* data) {
  DNNL(dnnl_memory_set_data_handle(o->user, data));
}

/* After the primitive: an output in a layout of the primitive's own goes back to the caller's. */
static void finish_output(const Operand* o) {
  reorder(o, 1);
  DNNL(dnnl_stream_wait(stream));
}

/* A matmul C = A . B (batched over the first of `ndims` dimensions when 3), the operands in the
   layouts the tags give, optionally with a bias row and a ReLU after. */
typedef struct {
  dnnl_primitive_t primitive;
  Operand a, b, bias, c;
} Matmul;

static Matmul make_matmul(int ndims, const dnnl_dim_t* a_dims, dnnl_format_tag_t a_tag,
                          const dnnl_dim_t* b_dims, dnnl_format_tag_t b_tag,
                          const dnnl_dim_t* c_dims, int with_bias, int with_relu) {
  Matmul m;
  memset(&m, 0, sizeof m);
  open_engine();
  const dnnl_memory_desc_t a = plain_desc(ndims, a_dims, a_tag);
  const dnnl_memory_desc_t b = plain_desc(ndims, b_dims, b_tag);
  const dnnl_memory_desc_t c = plain_desc(ndims, c_dims, ndims == 3 ? dnnl_abc : dnnl_ab);
  dnnl_dim_t bias_dims[3] = {1, 1, 1};
  bias_dims[ndims - 1] = c_dims[ndims - 1];
  const dnnl_memory_desc_t bias = plain_desc(ndims, bias_dims, ndims == 3 ? dnnl_abc : dnnl_ab);
  dnnl_matmul_desc_t desc;
  DNNL(dnnl_matmul_desc_init(&desc, &a, &b, with_bias ? &bias : NULL, &c));
  dnnl_primitive_attr_t attr;
  DNNL(dnnl_primitive_attr_create(&attr));
  if (with_relu) {
    dnnl_post_ops_t ops;
    DNNL(dnnl_post_ops_create(&ops));
    DNNL(dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
    DNNL(dnnl_primitive_attr_set_post_ops(attr, ops));
  }
  dnnl_primitive_desc_t pd;
  m.primitive = make_primitive(&desc, attr, &pd);
  m.a = make_operand(&a, &a, 0);
  m.b = make_operand(&b, &b, 0);
  m.bias = make_operand(&bias, &bias, 0);
  m.c = make_operand(&c, &c, 1);
  return m;
}

static void run_matmul(const Matmul* m, const float* a, const float* b, const float* bias,
                       float* c) {
  bind_input(&m->a, a);
  bind_input(&m->b, b);
  bind_output(&m->c, c);
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, m->a.inner},
                             {DNNL_ARG_WEIGHTS, m->b.inner},
                             {DNNL_ARG_DST, m->c.inner},
                             {DNNL_ARG_BIAS, m->bias.inner}};
  if (bias != NULL) bind_input(&m->bias, bias);
  execute(m->primitive, bias != NULL ? 4 : 3, args);
  finish_output(&m->c);
}
)c";

constexpr std::string_view kOpenMp = R"c(
/* A plain OpenMP loop: what a programmer writes where no library has the kernel. */
#include <omp.h>
)c";

std::string_view helpers_of(Library library) {
  switch (library) {
    case Library::openblas:
      return kOpenBlas;
    case Library::onednn:
      return kOneDnn;
    case Library::openmp:
      return kOpenMp;
  }
  SCULPT_CHECK(false) << "unknown library";
  return {};
}

std::string_view c_type(device::ElementType type) {
  switch (type) {
    case device::ElementType::f32:
      return "float";
    case device::ElementType::f64:
      return "double";
    case device::ElementType::i32:
      return "int32_t";
  }
  SCULPT_CHECK(false) << "unknown element type";
  return {};
}

}  // namespace

std::string to_string(Library library) {
  switch (library) {
    case Library::openblas:
      return "OpenBLAS";
    case Library::onednn:
      return "oneDNN";
    case Library::openmp:
      return "OpenMP loop";
  }
  SCULPT_CHECK(false) << "unknown library";
  return {};
}

device::KernelCode peer_code(const Peer& peer, const device::Problem& problem) {
  std::string source = fmt::format("// {}: {}, a peer of sculpt's {}.\n", peer.name,
                                   to_string(peer.library), problem.name);
  source += kCommon;
  source += helpers_of(peer.library);
  if (!peer.helpers.empty()) source += "\n" + peer.helpers;
  const std::string entry = "peer_" + peer.name;
  source += fmt::format("\nvoid {}(void** params) {{\n", entry);
  for (std::size_t i = 0; i < problem.params.size(); ++i) {
    if (const auto* scalar = std::get_if<device::ScalarParam>(&problem.params[i])) {
      const std::string_view type = c_type(scalar->type());
      source += fmt::format("  const {0} {1} = *(const {0}*)params[{2}];\n", type, scalar->name, i);
    } else {
      const auto& array = std::get<device::ArrayParam>(problem.params[i]);
      const std::string_view type = c_type(array.type);
      const bool read_only = array.role == device::Role::input;
      source += fmt::format("  {0}{1}* restrict {2} = *({1}* const*)params[{3}];\n",
                            read_only ? "const " : "", type, array.name, i);
    }
  }
  source += peer.body;
  if (!source.ends_with('\n')) source += '\n';
  source += "}\n";
  return device::KernelCode{device::Language::c, std::move(source), entry, {}};
}

std::vector<std::string> peer_link_flags() {
  return {"-Wl,--no-as-needed", "-lopenblas", "-ldnnl", "-Wl,--as-needed"};
}

}  // namespace sculpt::bench
