"""HTA's hta.common.types: the device an event, a thread or a comparison is
about, and how HTA tells a CPU thread from a GPU stream."""
from enum import Enum


class DeviceType(Enum):
    UNKNOWN = 0
    CPU = 1
    GPU = 2
    ALL = 3


def infer_device_type(df):
    """GPU when every row is on a stream (> 0) or pid or tid is 0; CPU when
    every row is off streams (-1); UNKNOWN otherwise (HTA's rules)."""
    streams = df["stream"].unique()
    if (streams > 0).all() or (df["pid"].unique() == 0).all() or (df["tid"].unique() == 0).all():
        return DeviceType.GPU
    if (streams == -1).all():
        return DeviceType.CPU
    return DeviceType.UNKNOWN
