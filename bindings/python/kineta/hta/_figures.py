"""The plotly figures HTA's TraceAnalysis and TraceDiff draw with
visualize=True (and TraceDiff.visualize_*), drawn from the frames kineta.hta
returns: the same figure kinds, traces, titles and axis titles as HTA's,
shown with fig.show() as HTA shows them.  plotly is imported only here and
in the timeline modules: frames never need it (_plot.plotly names the
Debian package when it is missing)."""
import pandas as pd

from ._plot import plotly


def temporal_breakdown(frame):
    px = plotly()[0]
    shares = frame[["rank"]].copy()
    for part in ("idle_time", "compute_time", "non_compute_time"):
        shares[part] = frame[f"{part}(us)"] / frame["kernel_time(us)"]
    fig = px.bar(shares, x="rank", y=["idle_time", "compute_time", "non_compute_time"],
                 title="Temporal breakdown across ranks", labels={"rank": "Rank"})
    fig.update_layout(yaxis_tickformat=".2%", yaxis_title="Percentage", legend_title="Time Breakdown")
    fig.show()


def idle_time_breakdown(frame, percentage):
    """One figure per rank: idle time by stream and category."""
    px = plotly()[0]
    for rank, rows in frame.groupby("rank", sort=True):
        rows = rows.assign(stream=rows["stream"].astype(str))
        fig = px.bar(rows, x="stream", y="idle_time_ratio" if percentage else "idle_time", color="idle_category",
                     hover_data=["idle_time", "idle_time_ratio"],
                     title=f"Idle time breakdown on rank {rank} per CUDA stream")
        if percentage:
            fig.update_layout(yaxis_tickformat=".2%", yaxis_title="Percentage", legend_title="Idle Time Breakdown")
        else:
            fig.update_layout(yaxis_title="Idle time (us)", legend_title="Idle Time Breakdown")
        fig.show()


def kernel_breakdown(kernel_types, kernels, ranks, analyzed, renderer=None):
    """The share of each kernel type; per type, its kernels' shares on each
    rank (a pie per rank) and each kernel's mean on each rank (a bar)."""
    px = plotly()[0]
    fig = px.pie(kernel_types[kernel_types["percentage"] > 0], values="percentage", names="kernel_type", height=500,
                 title="Kernel Type Percentage Across All Ranks")
    fig.update_layout(margin=dict(l=50, r=50, b=50, t=50), showlegend=True,
                      legend=dict(yanchor="bottom", y=-0.4, xanchor="left", x=0))
    fig.show(renderer=renderer)
    for kind in analyzed:
        of_kind = kernels[kernels["kernel_type"].eq(kind)]
        _rank_pies(of_kind, ranks, f'Kernel type "{kind}" - kernel distribution on each rank', renderer)
        _mean_bars(of_kind, lambda name, k=kind: f'Kernel type "{k}" - {name}', renderer)


def annotation_breakdown(annotations, ranks, renderer=None):
    _rank_pies(annotations, ranks, "User annotation distribution on each rank", renderer)
    _mean_bars(annotations, lambda name: f"User annotation = {name}", renderer)


def _rank_pies(rows, ranks, title, renderer):
    """A pie of names by time for each rank, two to a row."""
    go, make_subplots = plotly()[1:]
    fig = make_subplots(rows=int((len(ranks) + 1) / 2), cols=2,
                        specs=[[{"type": "domain"}, {"type": "domain"}] for _ in range(0, len(ranks), 2)])
    for rank in ranks:
        mine = rows[rows["rank"].eq(rank)].sort_values("sum (us)", ascending=False)
        fig.add_trace(go.Pie(labels=mine["name"], values=mine["sum (us)"], title=f"Rank {rank}", automargin=False),
                      int(rank / 2) + 1, int(rank % 2) + 1)
    fig.update_layout(title_text=title, margin=dict(l=50, r=50, b=50, t=50), showlegend=True,
                      height=400 * (1 + len(ranks) / 2), legend=dict(yanchor="bottom", y=-0.1, xanchor="left", x=0))
    fig.show(renderer=renderer)


def _mean_bars(rows, title, renderer):
    """For each name but "others": its mean on each rank, min and max as error bars."""
    px = plotly()[0]
    for name in rows["name"].unique():
        if name == "others":
            continue
        mine = rows[rows["name"].eq(name)]
        fig = px.bar(mine, x="rank", y="mean (us)", title=name, labels={"rank": "Rank", "mean (us)": "Mean Duration (us)"},
                     error_y=mine["max (us)"] - mine["mean (us)"], error_y_minus=mine["mean (us)"] - mine["min (us)"])
        fig.update_layout(title_text=title(name), xaxis=dict(tickmode="linear", tick0=0, dtick=1))
        fig.show(renderer=renderer)


def comm_comp_overlap(frame):
    px = plotly()[0]
    shares = frame.assign(comp_comm_overlap_ratio=frame["comp_comm_overlap_pctg"] / 100)
    fig = px.bar(shares, x="rank", y="comp_comm_overlap_ratio", title="Computation-Communication Overlap",
                 labels={"rank": "Rank", "comp_comm_overlap_ratio": "Computation-Communication Overlap Percentage"})
    fig.update_layout(yaxis_tickformat=".2%")
    fig.show()


def launch_stats(rank, events, runtime_cutoff, launch_delay_cutoff):
    """Three histograms of one rank's launches: short kernels, slow runtime calls, long launch delays."""
    px = plotly()[0]
    runtime = {"cpu_duration": "Cuda Runtime Event Duration (us)"}
    short = events[(events["cpu_duration"] <= runtime_cutoff) & (events["gpu_duration"] < events["cpu_duration"])]
    slow = events[events["cpu_duration"] > runtime_cutoff]
    late = events[events["launch_delay"] > launch_delay_cutoff]
    px.histogram(short, x=short["cpu_duration"], labels=runtime,
                 title="Short GPU kernels (gpu op duration < cpu op duration) on rank %d" % rank).show()
    px.histogram(slow, x=slow["cpu_duration"], nbins=300, labels=runtime,
                 title="Runtime Event Duration Outliers (duration > %s us)  on rank %d" % (runtime_cutoff, rank)).show()
    px.histogram(late, x=late["launch_delay"], nbins=300, labels={"launch_delay": "Launch Delay Duration (us)"},
                 title="Launch Delay Outliers (duration > %s us) on rank %d" % (launch_delay_cutoff, rank)).show()


def aten_op_kernels(rank, frame):
    """A table of one rank's ATen ops, their kernels and delays (HTA always shows it)."""
    go = plotly()[1]
    header = ["ATen Operation", "Kernel Sequence", "Occurrence Count", "Average ATen Op Launch Delay (us)",
              "Average Runtime Delay (us)"]
    columns = ["aten_op_name", "kernel_sequence", "occurrence_count", "avg_aten_op_launch_delay", "avg_runtime_delay"]
    fig = go.Figure(data=[go.Table(header={"values": header},
                                   cells={"values": [frame[c] for c in columns], "height": 30, "align": "left"})])
    fig.update_layout(title="ATen Operations, Associated Kernels, ATen and Runtime Delays for Rank %s" % rank,
                      width=1500, height=1500, autosize=True, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    fig.show()


def frequent_patterns(patterns, top_k, rank):
    px = plotly()[0]
    shown = patterns[:top_k].copy()
    shown["pattern"] = shown["pattern"].str.replace("|", "<br>", regex=False)
    fig = px.bar(shown, x=shown.index, y="count", hover_data=["pattern", "count"],
                 title=f"Top {top_k} frequent patterns for rank {rank}",
                 labels={"x": "Pattern Index", "count": "Pattern Count"})
    fig.update_xaxes(type="category")
    fig.show()


def diff_bars(frame, measure, show_image, export_image_path):
    """TraceDiff's grouped bars of both runs' counts (measure "counts") or
    total durations ("total_duration") per op, and their difference."""
    go = plotly()[1]
    labels = [c[: -len("_total_duration")] for c in frame.columns if c.endswith("_total_duration")]
    if len(labels) < 2:
        raise ValueError("the frame has no two runs' columns: pass TraceDiff.compare_traces's result")
    diff = "diff_counts" if measure == "counts" else "diff_duration"
    fig = go.Figure(data=[go.Bar(name=labels[0], x=frame.index, y=frame[f"{labels[0]}_{measure}"]),
                          go.Bar(name=labels[1], x=frame.index, y=frame[f"{labels[1]}_{measure}"]),
                          go.Bar(name="Difference", x=frame.index, y=frame[diff])])
    if measure == "counts":
        fig.update_layout(barmode="group", title_text="Ops Count Comparison")
    else:
        fig.update_layout(barmode="group", title_text="Ops Duration Comparison", yaxis_title="Total Duration (us)",
                          autosize=True, width=1000, height=1000)
    if show_image:
        fig.show()
    if export_image_path:
        fig.write_image(export_image_path)



def stragglers(t, steps, metric):
    """HTA's straggler figures: the timeline of the steps' long NCCL kernels
    (at least 1% of a step), of the candidate kernel (kineta's metric table
    names its stream and kernel) on each rank, and the metric per rank (a
    facet per step when there are several), stragglers in red."""
    from .analyzers.timeline import _unique_values, plot_timeline_gpu_kernels
    px = plotly()[0]
    ranks = t.get_ranks()
    df = pd.concat([t.get_trace(r) for r in ranks], axis=0, keys=ranks, names=["rank", "idx"]).reset_index()
    df = df.loc[df["iteration"].isin(steps)]
    table = t.symbol_table
    nccl = [i for i, s in enumerate(table.get_sym_table()) if s.startswith("ncclKernel")]
    iterations = _unique_values(df, "iteration")
    step_time = ((df["ts"] + df["dur"]).max() - df["ts"].min()) / float(len(iterations))
    share = 0.01  # HTA's min_normalized_duration
    long = df.loc[df["stream"].gt(0) & df["iteration"].gt(0) & df["dur"].ge(step_time * share) & df["name"].isin(nccl)]
    plot_timeline_gpu_kernels(f"Timeline of Communication Kernels Longer Than {share * 100:.2f}% of Iteration Time\n",
                              long, table,
                              ranks=_unique_values(df, "rank"), duration_threshold=2000)
    last = long.groupby(["rank", "stream", "iteration", "name"], as_index=False).last()
    chosen = last["stream"].eq(metric["stream"].iloc[0]) & last["name"].eq(table.sym_index[metric["name"].iloc[0]])
    plot_timeline_gpu_kernels(f"Timeline of Candidate Kernels (Iterations={iterations})", last.loc[chosen], table,
                              ranks=_unique_values(df, "rank"))
    by_step = metric["iteration"].nunique() > 1
    shown = metric[["rank", "iteration", "normalized_start_time"] if by_step else ["rank", "normalized_start_time"]]
    shown = shown.assign(is_straggler=metric["is_straggler"].map(lambda x: "Yes" if x > 0 else "No"))
    px.bar(shown, x="rank", y="normalized_start_time", facet_col="iteration" if by_step else None, color="is_straggler",
           color_discrete_map={"Yes": "red", "No": "blue"}, hover_data=list(shown.columns[:-1]),
           width=300 * metric["iteration"].nunique(), title="Potential Stragglers").show()
