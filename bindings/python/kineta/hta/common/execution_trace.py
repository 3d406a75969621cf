"""HTA's hta.common.execution_trace: a PyTorch Execution Trace (ET, the
graph torch.profiler.ExecutionTraceObserver writes) joined to a rank's
trace frame by record-function id (the frame's external_id).

HTA reads the ET with PARAM's et_replay package; kineta reads the ET JSON
itself (schema 1.0.x: nodes with id, name, rf_id, op_schema and the input
and output shapes and types), so the notebook's calls work without it.

    from kineta.hta.common import execution_trace          # was: hta.common
    et = execution_trace.load_execution_trace("rank0_et.json.gz")
    execution_trace.correlate_execution_trace(analyzer.t, 0, et)   # adds et_node
    execution_trace.add_et_column(analyzer.t.get_trace(0), et, "input_shapes")
"""
import gzip
import json
import logging
import os

import numpy as np
import pandas as pd

logger = logging.getLogger("kineta.hta")

EXECUTION_TRACE_SUPPORTED_EVENTS = ["cpu_op", "user_annotation"]
ET_COLUMNS = {"op_schema": "op_schema", "input_shapes": "input_shapes", "input_types": "input_types",
              "output_shapes": "output_shapes", "output_types": "output_types", "et_node_name": "name"}


class Node:
    """One ET node: its JSON members as attributes (name, id, rf_id, op_schema, input_shapes, ...)."""

    def __init__(self, fields):
        self.rf_id = None
        self.__dict__.update(fields)


class ExecutionTrace:
    """The ET's nodes by id, and its top-level fields (schema, pid, ...)."""

    def __init__(self, json_trace):
        self.schema = json_trace.get("schema")
        self.nodes = {n["id"]: Node(n) for n in json_trace.get("nodes", [])}


def load_execution_trace(et_file):
    path = os.path.expanduser(et_file)
    with gzip.open(path, "rt") if path.endswith("gz") else open(path) as f:
        return ExecutionTrace(json.load(f))


def _rf_ids(et):
    return [n.rf_id for n in et.nodes.values() if n.rf_id is not None
            and "execution_trace|thread" not in n.name and "execution_trace|process" not in n.name]


def _et_has_overlap(trace_df, et):
    """Whether the frame's external ids span every record-function id of the ET."""
    rf = _rf_ids(et)
    if not rf:
        return False
    return trace_df["external_id"].min() <= min(rf) and trace_df["external_id"].max() >= max(rf)


def correlate_execution_trace(trace, rank, et):
    """Adds et_node (the ET node id of each cpu_op / user_annotation row, NaN elsewhere) to the rank's frame."""
    trace_df = trace.get_trace(rank)
    if not _et_has_overlap(trace_df, et):
        logger.error("Execution Trace and kineto trace do not overlap, this mode is not currently supported")
        return
    node_of = pd.Series({n.rf_id: node_id for node_id, n in et.nodes.items()}, dtype="float64")
    cats = [trace.symbol_table.get_sym_id_map().get(c) for c in EXECUTION_TRACE_SUPPORTED_EVENTS]
    rows = trace_df["cat"].isin(cats)
    trace_df.loc[rows, "et_node"] = node_of.reindex(trace_df.loc[rows, "external_id"]).to_numpy()


def add_et_column(trace_df, et, column):
    """Adds the ET nodes' column (op_schema, input_shapes, input_types,
    output_shapes, output_types or et_node_name) to a correlated frame."""
    if "et_node" not in trace_df:
        logger.error("Please run correlate_execution_trace() first")
        return
    if column not in ET_COLUMNS:
        logger.error("Unknown column %s", column)
        return
    attr = ET_COLUMNS[column]
    nodes = trace_df["et_node"].to_numpy()
    present = pd.notna(nodes)
    ids, codes = np.unique(nodes[present].astype(np.int64), return_inverse=True)
    per_node = np.empty(len(ids), dtype=object)
    for j, node_id in enumerate(ids):  # once per ET node (lists stay objects)
        per_node[j] = getattr(et.nodes[node_id], attr)
    values = np.full(len(nodes), np.nan, dtype=object)
    values[present] = per_node[codes]
    trace_df[column] = values
