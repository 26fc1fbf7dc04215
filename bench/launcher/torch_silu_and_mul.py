# torch eager and torch.compile on silu_and_mul (bf16) at the shapes the
# launcher demo tunes, medians, two ways: cold L2 with events around each call
# (triton's do_bench flushes the L2 before every repetition; at small shapes
# this includes Python's launch overhead) and CUDA-graph replay (no launch
# overhead, warm L2). Plus the copy roofline from a measured device-to-device
# copy. Writes $OUT/torch_silu_and_mul.json.
import json, os, sys
import torch
from triton.testing import do_bench, do_bench_cudagraph

torch.manual_seed(0)
dev = "cuda"


def copy_bandwidth():
    a = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    b = torch.empty_like(a)
    t = do_bench(lambda: b.copy_(a), warmup=50, rep=300, return_mode="median")
    return 2 * a.numel() / (t * 1e-3) / 1e12


def silu_and_mul(x):
    d = x.shape[-1] // 2
    return torch.nn.functional.silu(x[..., :d]) * x[..., d:]


peak = copy_bandwidth()
rows = []
for T in [int(t) for t in sys.argv[1].split(",")]:
    for d in [int(v) for v in sys.argv[2].split(",")]:
        x = torch.randn(T, 2 * d, dtype=torch.bfloat16, device=dev)
        eager = do_bench(lambda: silu_and_mul(x), warmup=25, rep=200,
                         return_mode="median")
        torch._dynamo.reset()
        compiled = torch.compile(silu_and_mul, dynamic=False)
        compiled(x)
        torch.cuda.synchronize()
        comp = do_bench(lambda: compiled(x), warmup=25, rep=200,
                        return_mode="median")
        eager_g = do_bench_cudagraph(lambda: silu_and_mul(x), rep=100,
                                     return_mode="median")
        comp_g = do_bench_cudagraph(lambda: compiled(x), rep=100,
                                    return_mode="median")
        floor_us = 6 * T * d / (peak * 1e12) * 1e6
        rows.append(dict(num_tokens=T, d=d, eager_cold_us=eager * 1e3,
                         compile_cold_us=comp * 1e3,
                         eager_graph_us=eager_g * 1e3,
                         compile_graph_us=comp_g * 1e3, floor_us=floor_us))
        print(f"T={T:6d} d={d:6d} eager {eager*1e3:8.1f} / {eager_g*1e3:8.1f} us"
              f"  compile {comp*1e3:8.1f} / {comp_g*1e3:8.1f} us"
              f"  floor {floor_us:7.1f} us  (cold events / graph)", flush=True)
json.dump(dict(gpu=torch.cuda.get_device_name(), copy_TBps=peak, rows=rows),
          open(os.path.join(os.environ.get("OUT", "."),
                            "torch_silu_and_mul.json"), "w"), indent=1)
