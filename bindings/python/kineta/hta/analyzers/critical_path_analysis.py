"""HTA's hta.analyzers.critical_path_analysis: the CPGraph that
TraceAnalysis.critical_path_analysis returns, built by kineta's C critical
path (docs/critical-path.md) and held as frames."""


class CriticalPathRegion:
    """The rank, annotation and instance(s) a critical path was asked for."""

    def __init__(self, rank, annotation, instance_id):
        self.rank, self.annotation = rank, annotation
        first, last = instance_id if isinstance(instance_id, tuple) else (instance_id or 0,) * 2
        self.instance = f"{first}-{last}" if first != last else str(first)

    def options(self):
        return {"annotation": self.annotation, "instance": self.instance}


class CPGraph:
    """What HTA's CPGraph answers, as frames: summary(),
    get_critical_path_breakdown() and critical_path_edges_in_order() (the
    ordered path HTA keeps in critical_path_edges_set), plus graph (node and
    edge counts).  Not a networkx graph: kineta builds it in C."""

    def __init__(self, region, frames):
        self.region = region
        self.graph = frames["graph"].drop(columns=["rank"])
        self._breakdown = frames["breakdown"].drop(columns=["rank"])
        self._breakdown["bound_by"] = self._breakdown["bound_by"].fillna("")  # dependency edges: "" as in HTA
        self._breakdown.insert(len(self._breakdown.columns) - 1, "index", self._breakdown["event_idx"])
        edges = frames["edges"].drop(columns=["rank"])
        for column in ("u_is_start", "v_is_start"):
            edges[column] = edges[column].astype(bool)
        self._edges = edges

    def get_critical_path_breakdown(self):
        return self._breakdown.copy() if len(self._breakdown) else None

    def summary(self):
        """bound_by → % of the path's duration (HTA's Series)."""
        edges = self._breakdown
        return edges.groupby("bound_by").duration.sum() / edges.duration.sum() * 100

    def critical_path_edges_in_order(self):
        return self._edges.copy()
