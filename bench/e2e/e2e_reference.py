"""The float64 torch references and the torch baselines of the example
kernels, and the checks that compare outputs with them."""

from e2e_buffers import F, bits, torch


def ref_silu_and_mul(b, shape):
    x = b["input"].double()
    d = shape["d"]
    g, u = x[:, :d], x[:, d:]
    return {"out": g * torch.sigmoid(g) * u}


def torch_silu_and_mul(b, shape):
    x = b["input"]
    d = x.shape[-1] // 2
    return {"out": F.silu(x[..., :d]) * x[..., d:]}


def ref_fused_add_rmsnorm(b, shape, eps=1e-6):
    s = b["input"].double() + b["residual"].double()
    r = s.to(torch.bfloat16)  # the kernel stores the rounded residual ...
    inv = torch.rsqrt((s * s).mean(-1, keepdim=True) + eps)  # ... sums unrounded squares
    return {"input": r.double() * inv * b["weight"].double(), "residual": r.double()}


def torch_fused_add_rmsnorm(b, shape, eps=1e-6):
    x, r, w = b["input"], b["residual"], b["weight"]
    r = r + x
    v = r.float().pow(2).mean(-1, keepdim=True)
    return {"input": (r.float() * torch.rsqrt(v + eps)).to(x.dtype) * w, "residual": r}


def ref_merge_attn_states_lse(b, shape):
    sa, sb = b["s_a"].double(), b["s_b"].double()
    m = torch.maximum(sa, sb)
    ea, eb = torch.exp(sa - m), torch.exp(sb - m)
    s = ea + eb
    v = b["v_a"].double() * (ea / s)[..., None] + b["v_b"].double() * (eb / s)[..., None]
    return {"v_merged": v, "s_merged": m + torch.log(s)}


def torch_merge_attn_states_lse(b, shape):
    va, sa, vb, sb = b["v_a"], b["s_a"], b["v_b"], b["s_b"]
    m = torch.maximum(sa, sb)
    ea, eb = torch.exp(sa - m), torch.exp(sb - m)
    s = ea + eb
    out = (va.float() * (ea / s)[..., None] + vb.float() * (eb / s)[..., None]).to(va.dtype)
    return {"v_merged": out, "s_merged": m + torch.log(s)}


def ref_row_softmax(b, shape):
    return {"out": torch.softmax(b["in"].double(), -1)}


def torch_row_softmax(b, shape):
    return {"out": torch.softmax(b["in"], -1)}


def ref_block_reduce(b, shape):
    return {"out": b["in"].double().sum().reshape(1)}


def torch_block_reduce(b, shape):
    return {"out": b["in"].sum().reshape(1)}


def _rotate(x, cos, sin, rot):
    half = rot // 2
    x1, x2 = x[..., :half], x[..., half:rot]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin, x[..., rot:]], dim=-1)


def ref_rotary_embedding(b, shape):
    rot = shape["rot_dim"]
    cs = b["cos_sin_cache"].double()[b["positions"]]
    cos, sin = cs[:, None, : rot // 2], cs[:, None, rot // 2:]
    return {"query": _rotate(b["query"].double(), cos, sin, rot), "key": _rotate(b["key"].double(), cos, sin, rot)}


def torch_rotary_embedding(b, shape):
    rot = shape["rot_dim"]
    cs = b["cos_sin_cache"][b["positions"]]
    cos, sin = cs[:, None, : rot // 2], cs[:, None, rot // 2:]
    return {"query": _rotate(b["query"], cos, sin, rot), "key": _rotate(b["key"], cos, sin, rot)}


def ref_per_token_group_quant_8bit(b, shape, eps=1e-10):
    g = shape["group_size"]
    x = b["input"].float().reshape(-1, g)
    scale = torch.clamp(x.abs().amax(-1), min=eps) / 127.0
    q = torch.round(torch.clamp(x / scale[:, None], -128.0, 127.0))
    return {"output_q": q.reshape(b["input"].shape).double(), "output_s": scale.reshape(b["output_s"].shape).double()}


def torch_per_token_group_quant_8bit(b, shape, eps=1e-10):
    g = shape["group_size"]
    x = b["input"].float().reshape(-1, g)
    scale = torch.clamp(x.abs().amax(-1), min=eps) / 127.0
    q = torch.round(torch.clamp(x / scale[:, None], -128.0, 127.0)).to(torch.int8)
    return {"output_q": q.reshape(b["input"].shape), "output_s": scale.reshape(-1, b["input"].shape[-1] // g)}


def ref_tiled_transpose(b, shape):
    return {"out": b["in"].double().t()}


def torch_tiled_transpose(b, shape):
    return {"out": b["in"].t().contiguous()}


def reference(kernel, b, shape):
    return globals()["ref_" + kernel](b, shape)


def torch_fn(kernel):
    return globals()["torch_" + kernel]


def ref_threshold(kernel, name, dtype):
    """Largest ||out - ref|| / ||ref|| accepted against the float64 reference."""
    if kernel == "tiled_transpose":
        return 0.0
    if dtype in (torch.bfloat16, torch.float16):
        return 1e-2
    if dtype == torch.int8:
        return 1e-2
    return 1e-4


def compare_ref(kernel, name, out, ref):
    o = out.double().reshape(ref.shape)
    r = ref.double()
    if not torch.isfinite(o).all():
        return False, float("nan"), "non-finite values (unwritten or NaN)"
    denom = torch.linalg.vector_norm(r).item()
    err = torch.linalg.vector_norm(o - r).item() / (denom if denom > 0 else 1.0)
    ok = err <= ref_threshold(kernel, name, out.dtype)
    note = ""
    if out.dtype == torch.int8:
        mx = (o - r).abs().max().item()
        ok = ok and mx <= 1.0
        note = f"max |dq| {mx:g}"
    return ok, err, note


def compare_spec(a, b, tol):
    """Elementwise |a - b| <= atol + rtol |b| (the spec's tolerance)."""
    x, y = a.double(), b.double()
    if torch.equal(bits(a), bits(b)):
        return True, True, 0.0
    finite = torch.isfinite(x) & torch.isfinite(y)
    diff = (x - y).abs()
    allowed = float(tol.get("atol", 0)) + float(tol.get("rtol", 0)) * y.abs()
    bad = (~finite) | (diff > allowed)
    nbad = int(bad.sum().item())
    return nbad == 0, False, float(diff[finite].max().item()) if finite.any() else float("nan")
