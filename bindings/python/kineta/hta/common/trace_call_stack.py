"""HTA's hta.common.trace_call_stack: one CPU thread's call stack
(CallStackGraph) with HTA's queries, over the rank's call tree that
kineta.hta.common.trace_call_graph.CallGraph builds on arrays (_call_tree).

    from kineta.hta.common.trace_call_graph import CallGraph
    cg = CallGraph(t, ranks=[0])
    stack = next(cg.get_call_stacks(rank=0))
    stack.get_path_to_root(idx), stack.get_leaf_nodes(idx), stack.get_descendants(idx)

`nodes` maps an event index (or a root's -tid) to a CallStackNode made when
it is looked up, so a graph of millions of events costs no Python object
per event until asked.
"""
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import List, NamedTuple

from ._call_tree import NULL_NODE_INDEX
from .types import DeviceType

NON_EXISTENT_NODE_INDEX = -2


class CallStackIdentity(NamedTuple):
    rank: int = -1
    pid: int = -1
    tid: int = -1


@dataclass
class CallStackNode:
    parent: int = NULL_NODE_INDEX
    depth: int = -1
    height: int = -1
    device: DeviceType = DeviceType.CPU
    children: List[int] = field(default_factory=list)


class _Nodes(Mapping):
    """{node id: CallStackNode} over a RankTree (read-only, made on lookup)."""

    def __init__(self, tree):
        self._tree = tree

    def __getitem__(self, node_id):
        at = self._tree.position(node_id)
        if at < 0:
            raise KeyError(node_id)
        t = self._tree
        return CallStackNode(int(t.parent[at]), int(t.depth[at]), int(t.height[at]), DeviceType(int(t.device[at])),
                             t.children(node_id))

    def __contains__(self, node_id):
        return self._tree.position(node_id) >= 0

    def __iter__(self):
        return iter(self._tree.ids.tolist())

    def __len__(self):
        return len(self._tree.ids)


class CallStackGraph:
    """One CPU thread's stack: identity, df (the thread's rows), full_df (the
    rank's frame), nodes (shared by the rank's stacks), root_index (-tid, or
    the main thread's root once the bwd thread's events all moved under it),
    device_type, symbol_table."""

    def __init__(self, tree, thread, identity, full_df, symbol_table):
        self._tree = tree
        self.identity = identity
        self.df = full_df.iloc[thread.rows]
        self.full_df = full_df
        self.symbol_table = symbol_table
        self.device_type = thread.device
        self.nodes = _Nodes(tree)
        self.root_index = thread.root

    def __repr__(self):
        return f"CallStackGraph({self.identity}, {len(self.df)} events, root {self.root_index})"

    def get_nodes(self):
        return self.nodes

    def get_parent(self, idx):
        """The node's parent; -2 when the node is not in the graph."""
        at = self._tree.position(idx)
        return int(self._tree.parent[at]) if at >= 0 else NON_EXISTENT_NODE_INDEX

    def get_children(self, idx):
        return self._tree.children(idx)

    def get_root(self, idx):
        """The root of the subtree holding idx (NULL_NODE_INDEX when idx is not in it)."""
        if idx not in self.nodes:
            return NULL_NODE_INDEX
        root = self.get_parent(idx)
        while root >= 0 and root in self.nodes:
            root = self.get_parent(root)
        return root

    def get_path_to_root(self, idx):
        """idx, its ancestors, the root and NULL_NODE_INDEX (HTA's list)."""
        if idx not in self.nodes:
            return []
        path = [idx]
        while idx >= 0 and idx in self.nodes:
            idx = self.get_parent(idx)
            path.append(idx)
        return path

    def get_paths_to_leaves(self, idx, include_cuda_kernel=False):
        """Every path from idx down to a leaf.  As HTA, kernels are left out
        only when idx itself is not a CPU node."""
        if idx not in self.nodes or (not include_cuda_kernel and self.nodes[idx].device != DeviceType.CPU):
            return []
        paths, todo = [], [[idx]]
        while todo:
            path = todo.pop()
            children = self._tree.children(path[-1])
            if not children:
                paths.append(path)
            todo.extend(path + [c] for c in reversed(children))
        return paths

    def get_leaf_nodes(self, idx, include_gpu_kernel=False):
        return [path[-1] for path in self.get_paths_to_leaves(idx, include_gpu_kernel)]

    def get_descendants(self, idx, include_gpu_kernel=False):
        return list({i for path in self.get_paths_to_leaves(idx, include_gpu_kernel) for i in path})

    def get_dataframe(self):
        return self.df

    def get_depth(self):
        """The thread's events' depth, by event index."""
        return self.full_df.set_index("index", drop=False).loc[self.df["index"]]["depth"]

    def dfs_traverse(self, enter_func, exit_func):
        """enter_func(id, node) and exit_func(id, node) around each subtree, depth first."""
        self._dfs(self.root_index, enter_func, exit_func)

    def _dfs(self, node_id, enter_func, exit_func):
        node = self.nodes[node_id]
        enter_func(node_id, node)
        for child in node.children:
            self._dfs(child, enter_func, exit_func)
        exit_func(node_id, node)
