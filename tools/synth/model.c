/*
 * model.c — the workload: one training step of a small transformer under DDP
 * (data loading, forward, loss, backward with gradient buckets, optimizer).
 */
#include "synth.h"

/* ------------------------------------------------------------------------------------ */
/* The model: one training step of a small transformer under DDP                         */
/* ------------------------------------------------------------------------------------ */

typedef enum { FWD_LN, FWD_LINEAR, FWD_ATTN, FWD_ADD, FWD_GELU } FwdKind;

typedef struct {
    FwdKind kind;
    const char *module; /* "nn.Module: Linear_" + instance number, NULL for inline code */
    int ordinal, per_block; /* instance = layer * per_block + ordinal, as Kineto numbers them */
    const char *forward_py;
    int tpl;
} FwdOp;

static const FwdOp BLOCK[] = {
    {FWD_LN, "nn.Module: LayerNorm_", 0, 2, "torch/nn/modules/normalization.py(217): forward", K_LN_FWD},
    {FWD_LINEAR, "nn.Module: Linear_", 0, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_QKV},
    {FWD_ATTN, "nn.Module: SelfAttention_", 0, 1, "model.py(88): forward", K_FLASH_FWD},
    {FWD_LINEAR, "nn.Module: Linear_", 1, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_OUT},
    {FWD_ADD, NULL, 0, 1, "model.py(141): forward", K_ADD},
    {FWD_LN, "nn.Module: LayerNorm_", 1, 2, "torch/nn/modules/normalization.py(217): forward", K_LN_FWD},
    {FWD_LINEAR, "nn.Module: Linear_", 2, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_FC1},
    {FWD_GELU, "nn.Module: GELU_", 0, 1, "torch/nn/modules/activation.py(734): forward", K_GELU},
    {FWD_LINEAR, "nn.Module: Linear_", 3, 4, "torch/nn/modules/linear.py(125): forward", K_GEMM_FC2},
    {FWD_ADD, NULL, 0, 1, "model.py(143): forward", K_ADD},
};
enum { BLOCK_OPS = sizeof BLOCK / sizeof *BLOCK, MAX_LAYERS = 8 };

static void set_fwd_seq(Gen *g, Ev *op, FwdLink *link)
{
    link->seq = ++g->seq;
    link->flow = (uint32_t)++g->fwdbwd;
    op->style = ARGS_FWD_SEQ;
    op->aux = link->seq;
    op->flow = link->flow;
}

/* Python frames Kineto records around every nn.Module call (with_stack=True). */
static void module_enter(Gen *g, const char *module, int instance, const char *forward_py)
{
    cpu_open(g, EV_PYTHON, "torch/nn/modules/module.py(1736): _wrapped_call_impl");
    cpu_open(g, EV_PYTHON, "torch/nn/modules/module.py(1747): _call_impl");
    if (module)
        cpu_open(g, EV_PYTHON, module)->suffix = instance;
    py_noise(g, 3);
    cpu_open(g, EV_PYTHON, forward_py);
    py_noise(g, 5 + (int)(rng_next(&g->rng) % 5));
}

static void module_exit(Gen *g, const char *module)
{
    cpu_close(g); /* forward */
    if (module)
        cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void fwd_linear(Gen *g, int tpl, FwdLink *link)
{
    cpu_open(g, EV_PYTHON, "<built-in function linear>");
    cpu_open(g, EV_CPU_OP, "aten::linear");
    cpu_open(g, EV_CPU_OP, "aten::t");
    cpu_open(g, EV_CPU_OP, "aten::transpose");
    cpu_leaf(g, EV_CPU_OP, "aten::as_strided", 1000, 4000);
    cpu_close(g);
    cpu_close(g);
    Ev *mm = cpu_open(g, EV_CPU_OP, "aten::addmm");
    set_fwd_seq(g, mm, link);
    cpu_busy(g, 2000, 8000);
    if (tpl == K_GEMM_FC1)
        mem_instant(g, 25165824);
    launch(g, tpl, 0);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void fwd_single(Gen *g, const char *py, const char *outer, const char *inner, int tpl,
                       FwdLink *link)
{
    cpu_open(g, EV_PYTHON, py);
    Ev *op = cpu_open(g, EV_CPU_OP, outer);
    set_fwd_seq(g, op, link);
    if (inner)
        cpu_open(g, EV_CPU_OP, inner);
    cpu_busy(g, 2000, 9000);
    launch(g, tpl, 0);
    if (inner)
        cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void fwd_op(Gen *g, const FwdOp *op, int layer, FwdLink *link)
{
    module_enter(g, op->module, layer * op->per_block + op->ordinal, op->forward_py);
    switch (op->kind) {
    case FWD_LINEAR:
        fwd_linear(g, op->tpl, link);
        break;
    case FWD_LN:
        fwd_single(g, "torch/nn/functional.py(2910): layer_norm", "aten::layer_norm",
                   "aten::native_layer_norm", op->tpl, link);
        break;
    case FWD_ATTN:
        fwd_single(g, "<built-in function scaled_dot_product_attention>",
                   "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
                   op->tpl, link);
        break;
    case FWD_ADD:
        fwd_single(g, "<built-in method add of Tensor object at 0x7f3b2c1d9e50>", "aten::add", NULL,
                   op->tpl, link);
        break;
    case FWD_GELU:
        fwd_single(g, "<built-in function gelu>", "aten::gelu", NULL, op->tpl, link);
        break;
    }
    module_exit(g, op->module);
}

static void fwd_block_graph(Gen *g, int layer)
{
    int tpls[BLOCK_OPS];
    for (int i = 0; i < BLOCK_OPS; i++)
        tpls[i] = BLOCK[i].tpl;
    module_enter(g, "nn.Module: TransformerBlock_", layer, "torch/cuda/graphs.py(94): replay");
    graph_launch(g, tpls, BLOCK_OPS, 0);
    module_exit(g, "nn.Module: TransformerBlock_");
}

static void data_loading(Gen *g)
{
    cpu_open(g, EV_PYTHON, "torch/utils/data/dataloader.py(708): __next__");
    cpu_open(g, EV_PYTHON, "torch/utils/data/dataloader.py(764): _next_data");
    cpu_open(g, EV_PYTHON, "torch/utils/data/_utils/fetch.py(52): fetch");
    for (int i = 0; i < 32; i++) {
        cpu_open(g, EV_PYTHON, "dataset.py(31): __getitem__");
        cpu_open(g, EV_PYTHON, "<built-in method randint of type object at 0x7f3b60a1c8a0>");
        cpu_leaf(g, EV_CPU_OP, "aten::randint", 3000, 9000);
        cpu_close(g);
        py_noise(g, 3);
        cpu_close(g);
    }
    cpu_open(g, EV_PYTHON, "torch/utils/data/_utils/collate.py(398): default_collate");
    cpu_open(g, EV_CPU_OP, "aten::stack");
    cpu_leaf(g, EV_CPU_OP, "aten::cat", 8000, 20000);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void to_device(Gen *g)
{
    cpu_open(g, EV_PYTHON, "<built-in method to of Tensor object at 0x7f3b2c1d9e50>");
    cpu_open(g, EV_CPU_OP, "aten::to");
    cpu_open(g, EV_CPU_OP, "aten::_to_copy");
    cpu_leaf(g, EV_CPU_OP, "aten::empty_strided", 2000, 6000);
    mem_instant(g, 4194304);
    cpu_open(g, EV_CPU_OP, "aten::copy_");
    Ev *m = launch(g, M_HTOD, copy_stream(g));
    m->val = 4194304;
    if (copy_stream(g) != 0)
        stream_wait(g, 0, copy_stream(g)); /* the model reads the copied batch */
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void forward(Gen *g, FwdLink links[MAX_LAYERS][BLOCK_OPS])
{
    cpu_open(g, EV_PYTHON, "nn.Module: Transformer_0");
    cpu_open(g, EV_PYTHON, "model.py(210): forward");
    for (int l = 0; l < g->m->layers; l++) {
        if (g->m->graphs) {
            fwd_block_graph(g, l);
            continue;
        }
        for (int i = 0; i < BLOCK_OPS; i++)
            fwd_op(g, &BLOCK[i], l, &links[l][i]);
    }
    cpu_close(g);
    cpu_close(g);
}

static void loss(Gen *g, FwdLink *lsm, FwdLink *nll)
{
    module_enter(g, "nn.Module: CrossEntropyLoss_", 0, "torch/nn/modules/loss.py(1293): forward");
    cpu_open(g, EV_PYTHON, "torch/nn/functional.py(3479): cross_entropy");
    cpu_open(g, EV_CPU_OP, "aten::cross_entropy_loss");
    Ev *a = cpu_open(g, EV_CPU_OP, "aten::log_softmax");
    set_fwd_seq(g, a, lsm);
    cpu_open(g, EV_CPU_OP, "aten::_log_softmax");
    launch(g, K_LOGSOFTMAX, 0);
    cpu_close(g);
    cpu_close(g);
    Ev *b = cpu_open(g, EV_CPU_OP, "aten::nll_loss_nd");
    set_fwd_seq(g, b, nll);
    cpu_open(g, EV_CPU_OP, "aten::nll_loss_forward");
    launch(g, K_NLL, 0);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    module_exit(g, "nn.Module: CrossEntropyLoss_");
}

/* Backward node: "autograd::engine::evaluate_function: X" wrapping "X". */
static void bwd_node_open(Gen *g, const char *eval_name, const char *node, const FwdLink *link)
{
    size_t eval_index = g->n;
    cpu_open(g, EV_CPU_OP, eval_name);
    Ev *n = cpu_open(g, EV_CPU_OP, node); /* may move the array: index the first one */
    Ev *e = &g->ev[eval_index];
    if (link && link->flow) {
        e->style = n->style = ARGS_BWD_SEQ;
        e->aux = n->aux = link->seq;
        n->flow = link->flow;
    }
}

static void bwd_node_close(Gen *g)
{
    cpu_close(g);
    cpu_close(g);
}

static void bwd_launch_op(Gen *g, const char *op, int tpl, int stream)
{
    cpu_open(g, EV_CPU_OP, op);
    cpu_busy(g, 1000, 5000);
    launch(g, tpl, stream);
    cpu_close(g);
}

static void accumulate_grad(Gen *g)
{
    cpu_open(g, EV_CPU_OP, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
    cpu_open(g, EV_CPU_OP, "torch::autograd::AccumulateGrad");
    cpu_open(g, EV_CPU_OP, "aten::detach");
    cpu_leaf(g, EV_CPU_OP, "detach", 500, 2000);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void bwd_linear(Gen *g, int k, const FwdLink *link)
{
    bwd_node_open(g, "autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0", link);
    bwd_launch_op(g, "aten::mm", K_GEMM_DGRAD, 0);
    /* side-stream work consumes what stream 0 has produced so far */
    int wgrad = side_stream(g, k), bgrad = side_stream(g, k + 1);
    if (wgrad != 0)
        stream_wait(g, wgrad, 0);
    bwd_launch_op(g, "aten::mm", K_GEMM_WGRAD, wgrad);
    if (bgrad != 0 && bgrad != wgrad)
        stream_wait(g, bgrad, 0);
    bwd_launch_op(g, "aten::sum", K_REDUCE_SUM, bgrad);
    bwd_node_close(g);
    accumulate_grad(g);
    accumulate_grad(g);
}

static void bwd_attention(Gen *g, const FwdLink *link)
{
    bwd_node_open(g, "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
                  "ScaledDotProductFlashAttentionBackward0", link);
    cpu_open(g, EV_CPU_OP, "aten::_scaled_dot_product_flash_attention_backward");
    cpu_open(g, EV_CPU_OP, "aten::_flash_attention_backward");
    cpu_open(g, EV_CPU_OP, "aten::zeros");
    cpu_leaf(g, EV_CPU_OP, "aten::empty", 1000, 4000);
    cpu_open(g, EV_CPU_OP, "aten::zero_");
    Ev *m = launch(g, M_FILL, 0);
    m->val = 8388608;
    cpu_close(g);
    cpu_close(g);
    launch(g, K_FLASH_BWD, 0);
    cpu_close(g);
    cpu_close(g);
    bwd_node_close(g);
}

static void bwd_op(Gen *g, const FwdOp *op, int k, const FwdLink *link)
{
    switch (op->kind) {
    case FWD_LINEAR:
        bwd_linear(g, k, link);
        break;
    case FWD_LN:
        bwd_node_open(g, "autograd::engine::evaluate_function: NativeLayerNormBackward0",
                      "NativeLayerNormBackward0", link);
        cpu_open(g, EV_CPU_OP, "aten::native_layer_norm_backward");
        launch(g, K_LN_BWD_INPUT, 0);
        launch(g, K_LN_BWD_GAMMA, 0);
        cpu_close(g);
        bwd_node_close(g);
        accumulate_grad(g);
        break;
    case FWD_ATTN:
        bwd_attention(g, link);
        break;
    case FWD_ADD:
        bwd_node_open(g, "autograd::engine::evaluate_function: AddBackward0", "AddBackward0", link);
        cpu_busy(g, 1000, 3000);
        bwd_node_close(g);
        break;
    case FWD_GELU:
        bwd_node_open(g, "autograd::engine::evaluate_function: GeluBackward0", "GeluBackward0", link);
        bwd_launch_op(g, "aten::gelu_backward", K_GELU_BWD, 0);
        bwd_node_close(g);
        break;
    }
}

/* DDP gradient bucket: the collective waits for the gradients, then runs on the NCCL
 * stream while the remaining backward kernels keep the compute streams busy. */
static void allreduce_bucket(Gen *g)
{
    cpu_open(g, EV_CPU_OP, "c10d::allreduce_");
    Ev *c = cpu_open(g, EV_CPU_OP, "record_param_comms");
    c->style = ARGS_COMMS;
    c->aux = 4194304 + (rng_next(&g->rng) % 8) * 524288;
    uint64_t nelems = c->aux;
    cpu_open(g, EV_USER_ANN, "nccl:all_reduce");
    cpu_busy(g, 3000, 12000);
    /* gradients made on side streams are joined into stream 0, which the NCCL stream
     * then waits for */
    for (int s = 1; s <= side_streams(g); s++)
        stream_wait(g, 0, s);
    stream_wait(g, comm_stream(g), 0);
    Ev *k = launch(g, K_ALLREDUCE, comm_stream(g));
    k->aux = nelems;
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

static void backward(Gen *g, FwdLink links[MAX_LAYERS][BLOCK_OPS], const FwdLink *lsm,
                     const FwdLink *nll)
{
    cpu_open(g, EV_PYTHON, "torch/_tensor.py(626): backward");
    cpu_open(g, EV_PYTHON, "torch/autograd/__init__.py(347): backward");
    cpu_open(g, EV_PYTHON, "torch/autograd/graph.py(823): _engine_run_backward");
    cpu_open(g, EV_PYTHON, "<built-in method run_backward of torch._C._EngineBase object at 0x7f3b5e8c1a40>");
    g->thread = THREAD_AUTOGRAD;
    bwd_node_open(g, "autograd::engine::evaluate_function: NllLossBackward0", "NllLossBackward0", nll);
    cpu_open(g, EV_CPU_OP, "aten::nll_loss_backward");
    launch(g, K_NLL_BWD, 0);
    cpu_close(g);
    bwd_node_close(g);
    bwd_node_open(g, "autograd::engine::evaluate_function: LogSoftmaxBackward0", "LogSoftmaxBackward0", lsm);
    bwd_launch_op(g, "aten::_log_softmax_backward_data", K_LOGSOFTMAX_BWD, 0);
    bwd_node_close(g);
    for (int l = g->m->layers - 1; l >= 0; l--) {
        for (int i = BLOCK_OPS - 1; i >= 0; i--)
            bwd_op(g, &BLOCK[i], l * BLOCK_OPS + i, g->m->graphs ? NULL : &links[l][i]);
        if (l % 2 == 0) {
            if (g->m->collectives)
                coll_slot(g);
            else
                allreduce_bucket(g);
        }
    }
    g->thread = THREAD_MAIN;
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

/* Parameters per transformer block: 4 Linear and 2 LayerNorm modules, weight + bias. */
static int parameter_count(const Gen *g)
{
    return g->m->layers * 12;
}

/* Optimizers walk their parameter list in Python; with with_stack=True every visit
 * leaves python_function events, which is why real traces are mostly Python. */
static void per_parameter_python(Gen *g, const char *loop_frame, const char *const *calls, int ncalls)
{
    cpu_open(g, EV_PYTHON, loop_frame);
    for (int p = 0; p < parameter_count(g); p++)
        for (int c = 0; c < ncalls; c++)
            cpu_leaf(g, EV_PYTHON, calls[c], 200, 1500);
    cpu_close(g);
}

static void zero_grad(Gen *g)
{
    static const char *const CALLS[] = {"torch/_tensor.py(1443): grad"};
    cpu_open(g, EV_PYTHON, "torch/optim/optimizer.py(957): zero_grad");
    cpu_open(g, EV_USER_ANN, "Optimizer.zero_grad#AdamW.zero_grad");
    per_parameter_python(g, "torch/optim/optimizer.py(979): zero_grad", CALLS, 1);
    cpu_close(g);
    cpu_close(g);
}

static void optimizer_step(Gen *g)
{
    static const char *const INIT_GROUP_CALLS[] = {
        "<built-in method append of list object at 0x7f3b2a7e1c80>",
        "<built-in method append of list object at 0x7f3b2a7e1d40>",
        "<built-in method append of list object at 0x7f3b2a7e1e00>",
        "<built-in method append of list object at 0x7f3b2a7e1ec0>",
        "torch/_tensor.py(1443): grad",
        "torch/optim/optimizer.py(101): _get_value",
    };
    cpu_open(g, EV_PYTHON, "torch/optim/optimizer.py(487): wrapper");
    cpu_open(g, EV_USER_ANN, "Optimizer.step#AdamW.step");
    cpu_open(g, EV_PYTHON, "torch/optim/adamw.py(209): step");
    py_noise(g, 3);
    per_parameter_python(g, "torch/optim/adamw.py(129): _init_group", INIT_GROUP_CALLS, 6);
    /* the update must wait for the allreduced gradients */
    stream_wait(g, 0, comm_stream(g));
    if (g->m->graphs) {
        static const int OPT_GRAPH[] = {K_FOREACH_ADD, K_FUSED_ADAM, K_FUSED_ADAM, K_FUSED_ADAM};
        cpu_open(g, EV_PYTHON, "torch/cuda/graphs.py(94): replay");
        graph_launch(g, OPT_GRAPH, 4, 0);
        cpu_close(g);
    } else {
        cpu_open(g, EV_PYTHON, "torch/optim/adamw.py(680): _fused_adamw");
        cpu_open(g, EV_CPU_OP, "aten::_foreach_add_");
        launch(g, K_FOREACH_ADD, 0);
        cpu_close(g);
        cpu_open(g, EV_CPU_OP, "aten::_fused_adamw_");
        for (int i = 0; i < 3; i++)
            launch(g, K_FUSED_ADAM, 0);
        cpu_close(g);
        cpu_close(g);
    }
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

/* loss.item(): a device-to-host copy and a stream synchronize, which bounds how far
 * the CPU can run ahead of the GPU (and produces realistic GPU idle gaps). */
static void item_sync(Gen *g)
{
    cpu_open(g, EV_PYTHON, "<built-in method item of Tensor object at 0x7f3b2c1d9e50>");
    cpu_open(g, EV_CPU_OP, "aten::item");
    cpu_open(g, EV_CPU_OP, "aten::_local_scalar_dense");
    Ev *m = launch(g, M_DTOH, 0);
    m->val = 4;
    stream_sync(g, 0);
    cpu_close(g);
    cpu_close(g);
    cpu_close(g);
}

void build_step(Gen *g, uint64_t step)
{
    FwdLink links[MAX_LAYERS][BLOCK_OPS] = {{{0, 0}}};
    FwdLink lsm = {0, 0}, nll = {0, 0};
    g->n = 0;
    g->depth = 0;
    g->thread = THREAD_MAIN;
    g->gpu_first = INT64_MAX;
    g->gpu_last = 0;
    g->step_alloc = 0;
    Ev *ps = cpu_open(g, EV_USER_ANN, "ProfilerStep#");
    ps->suffix = (int32_t)step;
    g->step_ext_id = ps->ext_id;
    cpu_open(g, EV_PYTHON, "train.py(57): train_step");
    data_loading(g);
    zero_grad(g);
    to_device(g);
    if (g->m->collectives) {
        coll_slot(g); /* broadcast */
        coll_slot(g); /* allgather */
    }
    forward(g, links);
    loss(g, &lsm, &nll);
    backward(g, links, &lsm, &nll);
    if (g->m->collectives) {
        coll_slot(g); /* reducescatter */
        coll_slot(g); /* all-to-all-v */
        coll_slot(g); /* send/recv */
    }
    optimizer_step(g);
    mem_instant(g, -g->step_alloc); /* activations and the input batch are released */
    item_sync(g);
    cpu_close(g);
    cpu_close(g);
    cpu_busy(g, 20000, 80000); /* Python work between profiler steps */
}
