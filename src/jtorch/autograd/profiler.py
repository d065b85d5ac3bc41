"""torch.autograd.profiler: the legacy profiler API over torch.profiler's recorder."""

from __future__ import annotations

from ..profiler import ProfilerActivity, kineto_available, record_function
from ..profiler import profile as _profile
from ..profiler._events import EventList, FunctionEventAvg
from ..profiler._record import Event as FunctionEvent

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg",
           "ProfilerActivity", "kineto_available", "emit_nvtx", "emit_itt"]


class profile(_profile):  # noqa: N801 - PyTorch's name
    """The legacy profiler: records while enabled; ``use_cuda``/``use_device`` add the
    CUDA activity (see torch.profiler for what that means in jtorch)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        activities = {ProfilerActivity.CPU} if use_cpu else set()
        if use_cuda or use_device == "cuda":
            activities.add(ProfilerActivity.CUDA)
        super().__init__(activities=activities or None, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, acc_events=acc_events)
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            super().__enter__()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            super().__exit__(*exc)
        return False

    @property
    def function_events(self) -> EventList:
        return self.events()

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False) -> str:
        return self.events().table(sort_by, row_limit, max_src_column_width,
                                   max_name_column_width, max_shapes_column_width, header,
                                   top_level_events_only)

    def total_average(self) -> FunctionEventAvg:
        return self.events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.events().self_cpu_time_total


def _no_annotations(name):
    class unsupported:  # noqa: N801 - PyTorch's name
        def __init__(self, *args, **kwargs):
            raise RuntimeError(f"torch.autograd.profiler.{name} is not supported in jtorch: "
                               "it annotates CUDA/VTune timelines that JAX's runtime does "
                               "not expose")

    unsupported.__name__ = unsupported.__qualname__ = name
    return unsupported


emit_nvtx = _no_annotations("emit_nvtx")
emit_itt = _no_annotations("emit_itt")
