"""plotly for the figures kineta.hta draws as HTA does; an ImportError that
names the package when it is not installed (plotting is optional: frames
never need it)."""


def plotly_express():
    return plotly()[0]


def plotly():
    """(plotly.express, plotly.graph_objects, plotly.subplots.make_subplots)."""
    try:
        import plotly.express as px
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots
    except ImportError as e:
        raise ImportError("kineta.hta: this figure needs plotly (Debian: apt-get install python3-plotly; "
                          "or pip install plotly)") from e
    return px, go, make_subplots


def show_or_return(fig, plot_format="inline", save_path=None):
    """HTA's output choices: show inline (returns None), an HTML string, or a file."""
    if save_path:
        if save_path.endswith(".html"):
            fig.write_html(file=save_path)
        else:
            fig.write_image(save_path)
    if plot_format == "inline":
        fig.show()
    elif plot_format == "html":
        from plotly.io import to_html
        return to_html(fig, include_plotlyjs="cdn")
    return None
