"""The H100 of the deviceless GPU compiles, shared by the generators of
testdata/groundtruth and testdata/xla-today."""


def h100_target_config(device_memory_size: int, dnn_version: str, runtime_version: str) -> str:
    """An H100 SXM (80 GB HBM3) as XLA's GpuTargetConfigProto text.

    NVIDIA's published figures (132 SMs, 3.35 TB/s, 50 MiB L2, compute
    capability 9.0, 1.98 GHz boost) in the form of XLA's own spec files
    (xla/tools/hlo_opt/gpu_specs). The device memory size and the cuDNN and
    CUDA runtime versions ("major: 9 minor: 8") are those of the pinned
    plugin, as the CUDA runtime reports them.
    """
    return f"""
gpu_device_info {{
  threads_per_block_limit: 1024
  threads_per_warp: 32
  shared_memory_per_block: 49152
  shared_memory_per_core: 233472
  threads_per_core_limit: 2048
  core_count: 132
  fpus_per_core: 128
  block_dim_limit_x: 2147483647
  block_dim_limit_y: 65535
  block_dim_limit_z: 65535
  memory_bandwidth: 3352320000000
  l2_cache_size: 52428800
  clock_rate_ghz: 1.98
  device_memory_size: {device_memory_size}
  shared_memory_per_block_optin: 232448
  cuda_compute_capability {{ major: 9 minor: 0 }}
  registers_per_core_limit: 65536
  registers_per_block_limit: 65536
}}
platform_name: "CUDA"
dnn_version_info {{ {dnn_version} }}
runtime_version {{ {runtime_version} }}
device_description_str: "NVIDIA H100 80GB HBM3"
"""
