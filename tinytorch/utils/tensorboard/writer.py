"""``SummaryWriter``: PyTorch's writer of TensorBoard event files, over the tensorboard package's
``EventFileWriter`` (the same event files, the same tags and folders as ``torch.utils.tensorboard``)."""
from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from urllib.parse import quote

from tensorboard.compat.proto import event_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as _summary
from ._png import encode_png, make_grid, to_numpy, to_uint8
from ._graph import graph

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Events and summaries into one folder's event file (asynchronously, flushed every ``flush_secs``)."""

    def __init__(self, log_dir, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None) -> None:
        graph, run_metadata = graph_profile
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)
        tagged = event_pb2.TaggedRunMetadata(tag="step1", run_metadata=run_metadata.SerializeToString())
        self.add_event(event_pb2.Event(tagged_run_metadata=tagged), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        self.event_writer.reopen()


class SummaryWriter:
    """Writes scalars, histograms, images, figures, text, hyperparameters, the model's graph and
    embeddings to ``log_dir`` for TensorBoard (default ``runs/<date>_<host><comment>``)."""

    def __init__(self, log_dir=None, comment: str = "", purge_step=None, max_queue: int = 10,
                 flush_secs: int = 120, filename_suffix: str = "") -> None:
        if not log_dir:
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _summary.tensorflow_bins()

    def _get_file_writer(self) -> FileWriter:
        """The main folder's writer, (re)opened on first use and after ``close``."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard drops the events at and after this step left by an earlier, crashed run
                step = self.purge_step
                self.file_writer.add_event(event_pb2.Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(event_pb2.Event(
                    step=step, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    # -- scalars and histograms ---------------------------------------------------------------
    def add_scalar(self, tag: str, scalar_value, global_step=None, walltime=None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        summary = _summary.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step=None, walltime=None) -> None:
        """Several curves in one chart: each ``tag`` gets its own run folder ``log_dir/main_tag_tag``."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            folder = root + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(folder)
            if writer is None:
                writer = FileWriter(folder, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[folder] = writer
            writer.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None) -> None:
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(_summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    # -- images, figures, text ----------------------------------------------------------------
    def add_image(self, tag: str, img_tensor, global_step=None, walltime=None, dataformats: str = "CHW") -> None:
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_images(self, tag: str, img_tensor, global_step=None, walltime=None, dataformats: str = "NCHW") -> None:
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_figure(self, tag: str, figure, global_step=None, close: bool = True, walltime=None) -> None:
        """A matplotlib figure (or a list of them, as a grid) rendered to an image."""
        if isinstance(figure, list):
            self.add_images(tag, _summary.figure_to_image(figure, close), global_step, walltime, "NCHW")
        else:
            self.add_image(tag, _summary.figure_to_image(figure, close), global_step, walltime, "CHW")

    def add_text(self, tag: str, text_string: str, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step, walltime)

    # -- hyperparameters, graph, embeddings ---------------------------------------------------
    def add_hparams(self, hparam_dict: dict, metric_dict: dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None) -> None:
        """One run of a hyperparameter search: its values and metrics, in the sub-run ``run_name``."""
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        experiment, start, end = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w_hp:
            for s in (experiment, start, end):
                w_hp.file_writer.add_summary(s, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    def add_graph(self, model, input_to_model=None, verbose: bool = False, use_strict_trace: bool = True) -> None:
        """The module's structure (one node per leaf module call on ``input_to_model``)."""

        self._get_file_writer().add_graph(graph(model, input_to_model, verbose))

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag: str = "default",
                      metadata_header=None) -> None:
        """Points for the projector: ``log_dir/<step:05d>/<tag>/tensors.tsv`` (+ metadata.tsv, sprite.png)
        and their entry in ``projector_config.pbtxt``."""
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo, ProjectorConfig

        mat = to_numpy(mat)
        global_step = 0 if global_step is None else global_step
        subdir = f"{str(global_step).zfill(5)}/{quote(tag, safe='')}"
        root = self._get_file_writer().get_logdir()
        save_path = os.path.join(root, subdir)
        os.makedirs(save_path, exist_ok=True)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            with open(os.path.join(save_path, "metadata.tsv"), "w", encoding="utf-8") as f:
                if metadata_header is not None:
                    f.write("\t".join(str(h) for h in metadata_header) + "\n")
                    rows = ["\t".join(str(v) for v in row) for row in metadata]
                else:
                    rows = [str(v) for v in metadata]
                f.write("".join(r + "\n" for r in rows))
        if label_img is not None:
            imgs = to_numpy(label_img)
            if mat.shape[0] != imgs.shape[0]:
                raise AssertionError("#images should equal with #data points")
            side = int(-(-imgs.shape[0] ** 0.5 // 1))
            sprite = make_grid(imgs, ncols=side).transpose(1, 2, 0)
            with open(os.path.join(save_path, "sprite.png"), "wb") as f:
                f.write(encode_png(to_uint8(sprite)))
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        with open(os.path.join(save_path, "tensors.tsv"), "w", encoding="utf-8") as f:
            f.write("".join("\t".join(str(v) for v in row) + "\n" for row in mat.tolist()))
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        info = EmbeddingInfo(tensor_name=f"{tag}:{str(global_step).zfill(5)}", tensor_path=subdir + "/tensors.tsv")
        if metadata is not None:
            info.metadata_path = subdir + "/metadata.tsv"
        if label_img is not None:
            info.sprite.image_path = subdir + "/sprite.png"
            info.sprite.single_image_dim.extend([imgs.shape[3], imgs.shape[2]])
        self._projector_config.embeddings.extend([info])
        with open(os.path.join(root, "projector_config.pbtxt"), "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(self._projector_config))

    # -- lifetime -----------------------------------------------------------------------------
    def flush(self) -> None:
        """Write everything queued so far to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()
