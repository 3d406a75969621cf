"""HTA's hta.configs.parser_config: which args become columns of a trace
frame (Trace.get_trace).  ParserConfig.get_default_cfg() is the one every
Trace uses unless given another; add_args / set_args change the columns.

    from kineta.hta.configs.parser_config import ParserConfig   # was: hta.configs.parser_config
    cfg = ParserConfig.get_default_cfg()
    cfg.add_args(ParserConfig.ARGS_INPUT_SHAPE)
    ParserConfig.set_default_cfg(cfg)
"""
import copy
from enum import Enum
from typing import Any, NamedTuple


class ValueType(Enum):
    Int = 1
    Float = 2
    String = 3
    Object = 4


class AttributeSpec(NamedTuple):
    """An args key (raw_name) and the column it becomes (name, type, value when absent)."""
    name: str
    raw_name: str
    value_type: ValueType
    default_value: Any
    min_supported_version: Any = None


class ParserBackend(str, Enum):
    JSON = "json"
    IJSON = "ijson"
    IJSON_BATCHED = "ijson_batched"
    IJSON_BATCH_AND_COMPRESS = "ijson_batch_and_compress"


def _spec(name, raw, kind, default):
    return AttributeSpec(name, raw, ValueType[kind], default)


# HTA's table of known args: "group::key" → spec (HTA's event_args yaml).
AVAILABLE_ARGS = {key: _spec(*rest) for key, *rest in [
    ("index::ev_idx", "ev_idx", "Ev Idx", "Int", -1),
    ("index::external_id", "external_id", "External id", "Int", -1),
    ("index::python_id", "python_id", "Python id", "Int", -1),
    ("index::python_parent_id", "python_parent_id", "Python parent id", "Int", -1),
    ("cpu_op::concrete_inputs", "concrete_inputs", "Concrete Inputs", "Object", "[]"),
    ("cpu_op::fwd_thread", "fwd_thread_id", "Fwd thread id", "Int", -1),
    ("cpu_op::input_dims", "input_dims", "Input Dims", "Object", "-1"),
    ("cpu_op::input_type", "input_type", "Input type", "Object", "-1"),
    ("cpu_op::input_strides", "input_strides", "Input Strides", "Object", "-1"),
    ("cpu_op::sequence_number", "sequence", "Sequence number", "Int", -1),
    ("cpu_op::kernel_backend", "kernel_backend", "kernel_backend", "String", ""),
    ("cpu_op::kernel_hash", "kernel_hash", "kernel_hash", "String", ""),
    ("correlation::cbid", "cbid", "cbid", "Int", -1),
    ("correlation::cpu_gpu", "correlation", "correlation", "Int", -1),
    ("sm::blocks", "blocks_per_sm", "blocks per SM", "Object", "[]"),
    ("sm::occupancy", "est_occupancy", "est. achieved occupancy %", "Int", -1),
    ("sm::warps", "warps_per_sm", "warps per SM", "Float", 0.0),
    ("data::bytes", "bytes", "bytes", "Int", -1),
    ("data::bandwidth", "memory_bw_gbps", "memory bandwidth (GB/s)", "Float", 0.0),
    ("cuda::context", "context", "context", "Int", -1),
    ("cuda::device", "device", "device", "Int", -1),
    ("cuda::stream", "stream", "stream", "Int", -1),
    ("kernel::queued", "queued", "queued", "Int", -1),
    ("kernel::shared_memory", "shared_memory", "shared memory", "Int", -1),
    ("threads::block", "block", "block", "Object", "[]"),
    ("threads::grid", "grid", "grid", "Object", "[]"),
    ("threads::registers", "registers_per_thread", "registers per thread", "Int", -1),
    ("cuda_sync::stream", "wait_on_stream", "wait_on_stream", "Int", -1),
    ("cuda_sync::event", "wait_on_cuda_event_record_corr_id", "wait_on_cuda_event_record_corr_id", "Int", -1),
    ("info::finished", "finished", "finished", "String", ""),
    ("info::labels", "labels", "labels", "String", ""),
    ("info::name", "name", "name", "Int", -1),
    ("info::op_count", "op_count", "Op count", "Int", -1),
    ("info::sort_index", "sort_index", "sort_index", "Int", -1),
    ("nccl::collective_name", "collective_name", "Collective name", "String", ""),
    ("nccl::in_msg_nelems", "in_msg_nelems", "In msg nelems", "Int", 0),
    ("nccl::out_msg_nelems", "out_msg_nelems", "Out msg nelems", "Int", 0),
    ("nccl::in_msg_size", "in_msg_size", "In msg size", "Int", 0),
    ("nccl::out_msg_size", "out_msg_size", "Out msg size", "Int", 0),
    ("nccl::group_size", "group_size", "Group size", "Int", 0),
    ("nccl::dtype", "msg_dtype", "dtype", "String", ""),
    ("nccl::in_split_size", "in_split_size", "In split size", "Object", "[]"),
    ("nccl::out_split_size", "out_split_size", "Out split size", "Object", "[]"),
    ("nccl::input_tensors_start", "input_tensors_start", "Input Tensors start", "Object", "[]"),
    ("nccl::output_tensors_start", "output_tensors_start", "Output Tensors start", "Object", "[]"),
    ("nccl::process_group_name", "process_group_name", "Process Group Name", "String", ""),
    ("nccl::process_group_desc", "process_group_desc", "Process Group Description", "String", ""),
    ("nccl::process_group_ranks", "process_group_ranks", "Process Group Ranks", "Object", "[]"),
    ("nccl::rank", "process_rank", "Rank", "Int", -1),
    ("nccl::seq", "seq_num", "Seq", "Int", -1),
    ("inference::batch_size", "batch_size", "batchSize", "Int", -1),
    ("inference::batch_id", "batch_id", "batchId", "String", ""),
    ("inference::pre_grad_nodes", "pre_grad_nodes", "pre_grad_nodes", "Object", []),
]}


def _args(*keys):
    return [AVAILABLE_ARGS[k] for k in keys]


class ParserConfig:
    """The args a Trace turns into columns (HTA's default: ARGS_DEFAULT)."""

    ARGS_MINIMUM = _args("cuda::stream", "correlation::cpu_gpu")
    ARGS_BANDWIDTH = _args("data::bytes", "data::bandwidth")
    ARGS_SYNC = _args("cuda_sync::stream", "cuda_sync::event")
    ARGS_INPUT_SHAPE = _args("cpu_op::input_dims", "cpu_op::input_type", "cpu_op::input_strides")
    ARGS_INFO = _args("info::labels", "info::name", "info::sort_index")
    ARGS_TRITON_KERNELS = _args("cpu_op::kernel_backend", "cpu_op::kernel_hash")
    ARGS_COMMUNICATION = _args("nccl::collective_name", "nccl::in_msg_nelems", "nccl::out_msg_nelems",
                               "nccl::dtype", "nccl::group_size", "nccl::rank", "nccl::in_split_size",
                               "nccl::out_split_size")
    ARGS_DEFAULT = (ARGS_MINIMUM + ARGS_BANDWIDTH + ARGS_SYNC + ARGS_INPUT_SHAPE
                    + _args("index::external_id", "index::python_id", "index::python_parent_id")
                    + ARGS_COMMUNICATION)
    ARGS_COMPLETE = list(AVAILABLE_ARGS.values())

    def __init__(self, args=None, parser_backend=None, trace_memory=False, user_provide_trace_type=None,
                 parse_all_args=False, selected_arg_keys=None, version=None):
        self.args = list(args) if args else list(self.ARGS_DEFAULT)
        self.parser_backend = parser_backend
        self.trace_memory = trace_memory
        self.user_provide_trace_type = user_provide_trace_type
        self.parse_all_args = parse_all_args
        self.selected_arg_keys = selected_arg_keys
        self.min_required_cols = ["ts", "dur", "name", "cat", "pid", "tid"]

    def clone(self):
        return copy.deepcopy(self)

    def __repr__(self):
        return f"ParserConfig(args={[a.name for a in self.args]}, parse_all_args={self.parse_all_args})"

    @classmethod
    def get_default_cfg(cls):
        return copy.deepcopy(_DEFAULT)

    @classmethod
    def set_default_cfg(cls, cfg):
        global _DEFAULT
        _DEFAULT = copy.deepcopy(cfg)

    @classmethod
    def get_minimum_args(cls, version=None):
        return list(cls.ARGS_MINIMUM)

    @classmethod
    def get_default_args(cls, version=None):
        return list(cls.ARGS_DEFAULT)

    @classmethod
    def get_info_args(cls, version=None):
        return list(cls.ARGS_INFO)

    def set_args(self, args):
        self.args = list(args)

    def get_args(self):
        return self.args

    def add_args(self, args):
        names = {a.name for a in self.args}
        self.args += [a for a in args if a.name not in names]

    def set_min_required_cols(self, cols):
        self.min_required_cols = cols

    def get_min_required_cols(self):
        return self.min_required_cols

    def set_trace_memory(self, trace_memory):
        self.trace_memory = trace_memory

    def set_parser_backend(self, parser_backend):
        self.parser_backend = parser_backend

    def set_parse_all_args(self, parse_all_args):
        self.parse_all_args = parse_all_args
        return self

    @classmethod
    def get_all_available_args(cls):
        return dict(AVAILABLE_ARGS)

    @classmethod
    def show_available_args(cls):
        for key, spec in AVAILABLE_ARGS.items():
            print(f"{key:40} {spec.raw_name!r} → {spec.name} ({spec.value_type.name}, default {spec.default_value!r})")


_DEFAULT = ParserConfig()
