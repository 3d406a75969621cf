"""The call tree HTA's CallGraph builds for one rank (hta.common.trace_call_graph
and trace_call_stack), computed on whole columns instead of one event at a time.

HTA nests each CPU thread's events (stream -1) by walking their ends sorted
with its comparator (time; at one time: closing ends before opening ends,
longer intervals open first and close last, zero-length events inside the
interval that opens there, else inside the one that closes, index
tie-breaks) with a stack that pops its top at every closing end.  Here that
order is one lexsort, the stack's height a running sum clamped at 0, and an
event's parent the last event opened one level below it.  GPU kernels hang
under their launch (index_correlation); a "bwd" thread's top-level events
move under the main thread's "## backward ##" (else ProfilerStep#)
annotation enclosing them.  depth, height and the kernel sums then go level
by level, bottom up, on arrays.
"""
import functools

import numpy as np
import pandas as pd

from .types import DeviceType, infer_device_type

NULL_NODE_INDEX = -1

# the columns CallGraph writes into a rank's frame, in HTA's order
FRAME_COLUMNS = ["depth", "height", "parent", "num_kernels", "kernel_dur_sum", "kernel_span",
                 "first_kernel_start", "last_kernel_end"]
_UNSET = {"depth": -1, "height": -1, "parent": -1, "num_kernels": 0, "kernel_dur_sum": 0, "kernel_span": 0,
          "first_kernel_start": -1, "last_kernel_end": -1}


class Thread:
    """One CPU thread's stack: its identity, root id (the main thread's once
    a bwd thread's events all moved under it), label and frame rows."""

    def __init__(self, pid, tid, root, rows, device):
        self.pid, self.tid, self.root, self.rows, self.device = pid, tid, root, rows, device
        self.label = "empty"


class RankTree:
    """One rank's call tree on arrays indexed by node position (roots, then
    each thread's events in opening order, then kernels): ids (event index,
    or -tid for a thread's root), parent (an id; NULL_NODE_INDEX for roots),
    device (DeviceType value), depth and height; threads in (pid, tid) order."""

    def __init__(self, ids, parent, device, threads):
        self.ids = np.asarray(ids, dtype=np.int64)
        self.parent = np.asarray(parent, dtype=np.int64)
        self.device = np.asarray(device, dtype=np.int8)
        self.depth = np.full(len(self.ids), -1, dtype=np.int64)
        self.height = np.full(len(self.ids), -1, dtype=np.int64)
        self.threads = threads
        self._reindex()

    def _reindex(self):
        self.pos = pd.Index(self.ids)
        self._kids = None

    def position(self, node_id):
        """The node's position, or -1 when it is not in the tree."""
        return int(self.pos.get_indexer([node_id])[0])

    def children(self, node_id):
        """Ids of the node's children, in the order HTA adds them."""
        if self._kids is None:
            ppos = self.pos.get_indexer(self.parent)
            order = np.argsort(ppos, kind="stable")
            self._kids = (order, ppos[order])
        order, sorted_ppos = self._kids
        at = self.position(node_id)
        if at < 0:
            return []
        lo, hi = np.searchsorted(sorted_ppos, at, "left"), np.searchsorted(sorted_ppos, at, "right")
        return self.ids[order[lo:hi]].tolist()

    def drop(self, node_id):
        keep = self.ids != node_id
        self.ids, self.parent, self.device = self.ids[keep], self.parent[keep], self.device[keep]
        self.depth, self.height = self.depth[keep], self.height[keep]
        self._reindex()

    def reparent(self, node_ids, new_parent):
        self.parent[self.pos.get_indexer(node_ids)] = new_parent
        self._kids = None


def _walk_order(ids, ts, dur):
    """(event ids, whether each end opens) in HTA's order of the ends, as one lexsort."""
    n = len(ids)
    time = np.concatenate([ts, ts + dur])
    opening = np.concatenate([np.ones(n, bool), np.zeros(n, bool)])
    index = np.concatenate([ids, ids])
    d = np.concatenate([dur, dur])
    zero = d == 0
    at_open = np.isin(time, ts[dur != 0])  # a longer interval opens at this time
    cat = np.where(~zero, np.where(opening, 2, 1),
                   np.where(at_open, np.where(opening, 3, 4), np.where(opening, -2, -1)))
    k2 = np.where(zero, 0, np.where(opening, -d, d))
    k3 = np.where(opening, index, -index)
    order = np.lexsort((k3, k2, cat, time))
    return index[order], opening[order]


def _ambiguous(ts, dur):
    """Whether a zero-length event sits where one interval ends and another
    begins: there HTA's comparator is not an order (zero-length events go
    after openings and before closings, closings before openings), and its
    result is whatever its sort makes of its input order."""
    zeros = ts[dur == 0]
    return bool((np.isin(zeros, ts[dur != 0]) & np.isin(zeros, (ts + dur)[dur != 0])).any())


def _htas_walk_order(rows):
    """HTA's own order of the ends for a thread where only its sort decides:
    the same frame operations and a comparison sort with its comparator, so
    that the same input gives the same order (one Python call per comparison)."""
    events = rows[["index", "ts", "dur"]].copy()
    events["end"] = events["ts"] + events["dur"]
    events = (events.melt(id_vars=["index", "dur"], value_vars=["ts", "end"], var_name="kind", value_name="time")
              .replace({"ts": -1, "end": 1}).sort_values("time")).to_numpy().tolist()
    events.sort(key=functools.cmp_to_key(lambda x, y: -1 if _before(x, y) else 1))
    return np.array([e[0] for e in events], dtype=np.int64), np.array([e[2] == -1 for e in events])


def _before(x, y):
    """HTA's comparator of two ends (index, dur, kind: -1 opens / 1 closes, time)."""
    (xi, xd, xk, xt), (yi, yd, yk, yt) = x, y
    if xt != yt:
        return xt < yt
    if xi == yi:
        return xk == -1
    if xd == 0 and yd == 0:
        return (xi < yi if xk == -1 else xi > yi) if xk == yk else xk == -1
    if xd == 0 or yd == 0:
        if xd < 0 or yd < 0:
            raise ValueError(f"Unexpected case: {x} {y}")
        return yk == 1 if xd == 0 else xk == -1
    if xk != yk:
        return xk == 1
    if xd != yd:
        return xd > yd if xk == -1 else xd < yd
    return xi < yi if xk == -1 else xi > yi


def _nest(rows):
    """(ids in opening order, their parents; -1 for top level) of one thread's
    events (its stream -1 rows), as HTA's sorted walk and stack give them."""
    ids = rows["index"].to_numpy().astype(np.int64)
    ts, dur = rows["ts"].to_numpy(), rows["dur"].to_numpy()
    index, opening = _htas_walk_order(rows) if _ambiguous(ts, dur) else _walk_order(ids, ts, dur)
    n = len(ids)
    run = np.cumsum(np.where(opening, 1, -1))
    height = run - np.minimum(0, np.minimum.accumulate(run))  # a pop on an empty stack does nothing
    opens = np.flatnonzero(opening)
    level = height[opens] - 1
    open_ids = index[opens]
    width = 2 * n + 1
    key = level * width + opens
    by_key = np.argsort(key, kind="stable")
    below = np.searchsorted(key[by_key], (level - 1) * width + opens) - 1
    parents = np.where(level > 0, open_ids[by_key][np.maximum(below, 0)], -1)
    return open_ids, parents


def build(df, symbol_table):
    """The RankTree of one rank's frame (HTA's rows, with index, stream,
    index_correlation, ts, dur, end)."""
    stream = df["stream"].to_numpy()
    roots, ids, parents, devices, threads = [], [], [], [], []
    for (pid, tid), rows in df.groupby(["pid", "tid"], sort=True).indices.items():
        device = infer_device_type(df.iloc[rows])
        if device == DeviceType.GPU:
            continue
        root = -abs(int(tid))
        threads.append(Thread(int(pid), int(tid), root, rows, device))
        if root not in roots:
            roots.append(root)
            devices.append(device.value)
        events, of = _nest(df.iloc[rows[stream[rows] == -1]])
        ids.append(events)
        parents.append(np.where(of < 0, root, of))
    events = np.concatenate(ids) if ids else np.empty(0, np.int64)
    kernels, launches = _launched(df, events)
    tree = RankTree(np.concatenate([roots, events, kernels]),
                    np.concatenate([np.full(len(roots), NULL_NODE_INDEX)] + parents + [launches]),
                    np.concatenate([devices, np.full(len(events), DeviceType.CPU.value),
                                    np.full(len(kernels), DeviceType.GPU.value)]), threads)
    _label_threads(tree, df, symbol_table)
    tree.depth = _depths(tree)[0]  # what a node cut off by the linking keeps
    _link_backward(tree, df, symbol_table)
    return tree


def _launched(df, cpu_events):
    """(kernel ids, their launch ids): GPU rows (stream > 0) with a launch
    (index_correlation > 0) among the CPU events."""
    gpu = df.loc[df["stream"].gt(0) & df["index_correlation"].gt(0), ["index", "index_correlation"]]
    gpu = gpu.loc[gpu["index_correlation"].isin(cpu_events) & ~gpu["index"].isin(cpu_events)]
    return gpu["index"].to_numpy().astype(np.int64), gpu["index_correlation"].to_numpy().astype(np.int64)


def _label_threads(tree, df, symbol_table):
    """HTA's labels: "main" (runs a ProfilerStep#), "bwd" (an autograd:: op),
    else the thread's first name."""
    names = pd.Series(symbol_table.get_sym_table(), dtype=object)
    steps = set(np.flatnonzero(names.str.startswith("ProfilerStep#")))
    autograd = set(np.flatnonzero(names.str.contains("autograd::", regex=False)))
    column = df["name"].to_numpy()
    for thread in tree.threads:
        used = pd.unique(column[thread.rows])
        if steps.intersection(used):
            thread.label = "main"
        elif autograd.intersection(used):
            thread.label = "bwd"
        elif len(used):
            thread.label = names[used[0]]


def _link_backward(tree, df, symbol_table):
    """With one main and one bwd thread, the top-level events under the bwd
    root inside each "## backward ##" annotation (else ProfilerStep#) of the
    main thread become that annotation's children; a root left without
    children goes.  As HTA, once the bwd root is gone the next annotations
    take from the main thread's root, the annotation itself included: it
    becomes its own parent, and it and its subtree fall out of the tree
    (their depth stays, their height is -1, their kernel sums unset)."""
    main = [t for t in tree.threads if t.label == "main"]
    bwd = [t for t in tree.threads if t.label == "bwd"]
    if len(main) != 1 or len(bwd) != 1:
        return
    names = pd.Series(symbol_table.get_sym_table(), dtype=object)
    rows = df.iloc[main[0].rows]
    for prefix in ("## backward ##", "ProfilerStep#"):
        annotations = rows.loc[rows["name"].isin(np.flatnonzero(names.str.startswith(prefix))), "index"].tolist()
        if annotations:
            break
    spans = df.set_index("index")[["ts", "end"]]
    for annotation in annotations:
        root = bwd[0].root
        if tree.position(annotation) < 0:
            raise ValueError(f"{annotation} not in the node map self.nodes")
        first = np.asarray(tree.children(root), dtype=np.int64)
        start, end = spans.loc[annotation]
        inside = spans.reindex(first)
        moved = first[(inside["ts"].to_numpy() >= start) & (inside["end"].to_numpy() <= end)]
        moved = np.setdiff1d(moved, tree.children(annotation))
        if len(moved):
            tree.reparent(moved, annotation)
            if not tree.children(root):
                tree.drop(root)
                bwd[0].root = _root_of(tree, annotation)
                if bwd[0].root is None:  # a cycle: HTA loops for ever here
                    return


def _root_of(tree, node_id):
    """HTA's get_root: up the parents to the first id that is not a node; None on a cycle."""
    seen = set()
    parent = int(tree.parent[tree.position(node_id)])
    while parent >= 0 and tree.position(parent) >= 0:
        if parent in seen:
            return None
        seen.add(parent)
        parent = int(tree.parent[tree.position(parent)])
    return parent


def _depths(tree):
    """(depth of each node reached from a root (root -1), which nodes are
    reached); the others keep tree.depth."""
    ppos = tree.pos.get_indexer(tree.parent)
    reached = ppos < 0
    depth = np.where(reached, -1, tree.depth)
    while True:
        step = ~reached & reached[np.maximum(ppos, 0)] & (ppos >= 0)
        if not step.any():
            return depth, reached
        depth[step] = depth[ppos[step]] + 1
        reached |= step


def _levels(tree):
    """depth and height (kernel 0, CPU op max(1, children's + 1); -1 when not
    reached from a root) of every node; (parent positions, reached)."""
    ppos = tree.pos.get_indexer(tree.parent)
    depth, reached = _depths(tree)
    height = np.where(tree.device == DeviceType.GPU.value, 0, 1).astype(np.int64)
    for level in range(int(depth[reached].max(initial=-1)), -1, -1):
        at = np.flatnonzero(reached & (depth == level))
        np.maximum.at(height, ppos[at], height[at] + 1)
    tree.depth, tree.height = depth, np.where(reached, height, -1)
    return ppos, reached


def frame_columns(tree, df):
    """HTA's stack columns for df's rows (float64, before HTA's normalization)."""
    ppos, reached = _levels(tree)
    row = pd.Index(df["index"].to_numpy()).get_indexer(tree.ids)
    kernel = (tree.device == DeviceType.GPU.value) & (row >= 0) & reached
    kernel &= df["stream"].to_numpy()[np.maximum(row, 0)] != -1
    ts, end = df["ts"].to_numpy(), df["end"].to_numpy()
    dur = df["dur"].to_numpy()
    count = kernel.astype(np.int64)
    total = np.where(kernel, dur[np.maximum(row, 0)], 0).astype(np.float64)
    first = np.where(kernel, ts[np.maximum(row, 0)], np.inf).astype(np.float64)
    last = np.where(kernel, end[np.maximum(row, 0)], -1).astype(np.float64)
    for level in range(int(tree.depth[reached].max(initial=-1)), -1, -1):
        at = np.flatnonzero(reached & (tree.depth == level))
        np.add.at(count, ppos[at], count[at])
        np.add.at(total, ppos[at], total[at])
        np.minimum.at(first, ppos[at], first[at])
        np.maximum.at(last, ppos[at], last[at])
    node = (tree.ids >= 0) & (row >= 0)
    rows = row[node]
    unset = node & ~reached  # no kernel sums: HTA's initial values
    count[unset], total[unset], first[unset], last[unset] = 0, 0, -1, -1
    values = {"depth": tree.depth, "height": tree.height, "parent": tree.parent, "num_kernels": count,
              "kernel_dur_sum": total, "kernel_span": last - first, "first_kernel_start": first,
              "last_kernel_end": last}
    out = {}
    for col in FRAME_COLUMNS:
        v = np.full(len(df), float(_UNSET[col]))
        v[rows] = values[col][node]
        out[col] = v
    no_kernel = out["num_kernels"] <= 0
    for col in ("kernel_dur_sum", "kernel_span", "first_kernel_start", "last_kernel_end"):
        out[col][no_kernel] = _UNSET[col]
    return out
