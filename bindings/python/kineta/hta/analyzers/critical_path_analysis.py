"""HTA's hta.analyzers.critical_path_analysis: the CPGraph that
TraceAnalysis.critical_path_analysis returns, built by kineta's C critical
path (docs/critical-path.md) and held as frames; CPGraph.save and
restore_cpgraph keep one in a zip file (CSV, no pickle) as HTA does."""
import json
import os
import zipfile

import pandas as pd

_SAVED = ("graph.csv", "breakdown.csv", "edges.csv")


class CriticalPathRegion:
    """The rank, annotation and instance(s) a critical path was asked for."""

    def __init__(self, rank, annotation, instance_id):
        self.rank, self.annotation, self.instance_id = rank, annotation, instance_id
        first, last = instance_id if isinstance(instance_id, (tuple, list)) else (instance_id or 0,) * 2
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
        breakdown = frames["breakdown"].drop(columns=["rank"])
        breakdown.insert(len(breakdown.columns) - 1, "index", breakdown["event_idx"])
        self._set_frames(breakdown, frames["edges"].drop(columns=["rank"]))

    def _set_frames(self, breakdown, edges):
        breakdown["bound_by"] = breakdown["bound_by"].fillna("")  # dependency edges: "" as in HTA
        for column in ("u_is_start", "v_is_start"):
            edges[column] = edges[column].astype(bool)
        self._breakdown, self._edges = breakdown, edges

    def save(self, out_dir):
        """Writes the graph's frames into out_dir and zips them into
        out_dir.zip (replaced whole); returns the zip's path."""
        os.makedirs(out_dir, exist_ok=True)
        for name, frame in zip(_SAVED, (self.graph, self._breakdown, self._edges)):
            frame.to_csv(os.path.join(out_dir, name), index=False)
        region = self.region
        with open(os.path.join(out_dir, "region.json"), "w") as f:
            json.dump({"rank": region.rank, "annotation": region.annotation, "instance_id": region.instance_id}, f)
        zip_path = os.path.normpath(out_dir) + ".zip"
        with zipfile.ZipFile(zip_path + ".tmp", "w") as z:
            for name in _SAVED + ("region.json",):
                z.write(os.path.join(out_dir, name), arcname=name)
        os.replace(zip_path + ".tmp", zip_path)
        return zip_path

    def get_critical_path_breakdown(self):
        return self._breakdown.copy() if len(self._breakdown) else None

    def summary(self):
        """bound_by → % of the path's duration (HTA's Series)."""
        edges = self._breakdown
        return edges.groupby("bound_by").duration.sum() / edges.duration.sum() * 100

    def critical_path_edges_in_order(self):
        return self._edges.copy()


def restore_cpgraph(zip_filename, t_full, rank):
    """The CPGraph CPGraph.save wrote into zip_filename, for rank of the
    trace t_full (a TraceAnalysis, or HTA's Trace of the same files)."""
    with zipfile.ZipFile(zip_filename) as z:
        region = json.loads(z.read("region.json"))
        frames = [pd.read_csv(z.open(name)) for name in _SAVED]
    if region["rank"] != rank:
        raise ValueError(f"{zip_filename} holds rank {region['rank']}'s critical path, not rank {rank}'s")
    trace = t_full.t if isinstance(getattr(type(t_full), "t", None), property) else t_full  # TraceAnalysis or Trace
    ranks = trace.get_ranks()
    if rank not in ranks:
        raise ValueError(f"no trace for rank {rank}")
    instance = region["instance_id"]
    graph = CPGraph.__new__(CPGraph)
    graph.region = CriticalPathRegion(rank, region["annotation"], tuple(instance) if isinstance(instance, list)
                                      else instance)
    graph.graph = frames[0]
    graph._set_frames(frames[1], frames[2])
    return graph
