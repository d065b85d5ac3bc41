"""SummaryWriter over tensorboard's event-file writer and summary protos.

Differences from PyTorch: ``add_graph``, ``add_onnx_graph``, ``add_embedding``,
``add_mesh``, ``add_video``, ``add_audio`` and the custom-scalar layouts are not supported
(they raise saying so); the rest write the same summaries PyTorch's writer writes.
"""

from __future__ import annotations

import io
import os
import socket
import time
from datetime import datetime

import numpy as np
from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
from tensorboard.summary.writer.event_file_writer import EventFileWriter

__all__ = ["SummaryWriter"]


def _np(x) -> np.ndarray:
    from ...eager.tensor import Tensor

    if isinstance(x, Tensor):
        return np.asarray(x.detach()._value)
    return np.asarray(x)


def _histogram(values: np.ndarray, bins, max_bins=None) -> HistogramProto:
    """PyTorch's make_histogram (tensorboard's histogram.cc bucketing)."""
    values = values.reshape(-1).astype(float)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        sub = len(counts) // max_bins
        if len(counts) % sub:
            counts = np.pad(counts, [[0, sub - len(counts) % sub]])
        counts = counts.reshape(-1, sub).sum(axis=-1)
        limits = np.concatenate([limits[:-1:sub], limits[-1:]])
    cum = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(cum, [0, cum[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


def _image(tag: str, img: np.ndarray, dataformats: str) -> Summary:
    from PIL import Image

    img = _to_hwc(img, dataformats)
    scale = 255.0 if img.dtype.kind == "f" else 1.0
    img = np.clip(img * scale, 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(img.squeeze(-1) if img.shape[-1] == 1 else img).save(buf, format="PNG")
    h, w, c = img.shape
    return Summary(value=[Summary.Value(tag=tag, image=Summary.Image(
        height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue()))])


def _to_hwc(img: np.ndarray, dataformats: str) -> np.ndarray:
    dataformats = dataformats.upper()
    if dataformats == "HW":
        return img[..., None]
    if dataformats in ("CHW", "HWC"):
        out = img.transpose(1, 2, 0) if dataformats == "CHW" else img
        return np.concatenate([out] * 3, axis=-1) if out.shape[-1] == 1 else out
    raise ValueError(f"jtorch's SummaryWriter.add_image takes HW, CHW or HWC images, got "
                     f"dataformats={dataformats!r}")


class SummaryWriter:
    """Writes scalars, histograms, images and text to ``log_dir`` for TensorBoard."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir, self.purge_step = str(log_dir), purge_step
        self.max_queue, self.flush_secs = max_queue, flush_secs
        self.filename_suffix = filename_suffix
        self.all_writers: dict = {}
        self.file_writer = self._writer(self.log_dir)
        v, buckets = 1e-12, []
        while v < 1e20:
            buckets.append(v)
            v *= 1.1
        self.default_bins = [-b for b in buckets[::-1]] + [0] + buckets

    def _writer(self, logdir: str) -> EventFileWriter:
        w = self.all_writers.get(logdir)
        if w is None:
            w = self.all_writers[logdir] = EventFileWriter(logdir, self.max_queue,
                                                           self.flush_secs,
                                                           self.filename_suffix)
            w.add_event(Event(wall_time=time.time(), file_version="brain.Event:2"))
        return w

    def get_logdir(self) -> str:
        return self.log_dir

    def _add(self, summary: Summary, step, walltime, writer=None) -> None:
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if step is not None:
            event.step = int(step)
        (writer or self.file_writer).add_event(event)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None,
                   new_style=False, double_precision=False):
        value = float(_np(scalar_value).reshape(()))
        if new_style:
            proto = TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision \
                else TensorProto(float_val=[value], dtype="DT_FLOAT")
            meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
                plugin_name="scalars"))
            summary = Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=meta)])
        else:
            summary = Summary(value=[Summary.Value(tag=tag, simple_value=value)])
        self._add(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each scalar in its own run ``<log_dir>/<main_tag>_<tag>``, as PyTorch."""
        for tag, value in tag_scalar_dict.items():
            fw_tag = self.log_dir + "/" + main_tag.replace("/", "_") + "_" + tag
            summary = Summary(value=[Summary.Value(tag=main_tag,
                                                   simple_value=float(_np(value)))])
            self._add(summary, global_step, walltime, self._writer(fw_tag))

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        summary = Summary(value=[Summary.Value(tag=tag, histo=_histogram(_np(values), bins,
                                                                          max_bins))])
        self._add(summary, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
            plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
        tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                             tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
        self._add(Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                               tensor=tensor)]), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._add(_image(tag, _np(img_tensor), dataformats), global_step, walltime)

    def flush(self) -> None:
        for w in self.all_writers.values():
            w.flush()

    def close(self) -> None:
        for w in self.all_writers.values():
            w.flush()
            w.close()
        self.all_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _unsupported(name):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"SummaryWriter.{name} is not supported in jtorch")

    method.__name__ = name
    return method


for _name in ("add_graph", "add_onnx_graph", "add_embedding", "add_mesh", "add_video",
              "add_audio", "add_custom_scalars", "add_pr_curve", "add_hparams", "add_figure",
              "add_images", "add_image_with_boxes", "add_histogram_raw", "add_tensor"):
    setattr(SummaryWriter, _name, _unsupported(_name))
