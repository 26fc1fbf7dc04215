"""The example kernels: how to call each example's own launcher, which
buffers rotated copies share, which get a torch.compile baseline, and the
shapes benchmarked (in table order) from ktune's resolution of the spec."""

import os

import ktune_outputs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "examples")

# Placeholders {arg} are the spec's buffer arguments as void*; the dims are
# int64_t locals; `stream` is the stream.
KERNELS = {
    "silu_and_mul": dict(
        spec="silu_and_mul.spec.json",
        original="ops::launch_silu_and_mul({out}, {input}, (int)num_tokens, (int)(2 * d), "
        "ops::ScalarType::kBFloat16, stream)",
        seed=True, compile=True),
    "fused_add_rmsnorm": dict(
        spec="fused_add_rmsnorm.spec.json",
        original="ops::launch_fused_add_rmsnorm({input}, {residual}, {weight}, (int)num_tokens, "
        "(int)hidden, 1e-6f, ops::ScalarType::kBFloat16, stream)",
        seed=True, compile=True),
    "merge_attn_states_lse": dict(
        spec="merge_attn_states_lse.spec.json",
        original="ops::launch_merge_attn_states_lse({v_merged}, (float *){s_merged}, {v_a}, "
        "(const float *){s_a}, {v_b}, (const float *){s_b}, (int)num_tokens, (int)num_heads, "
        "(int)head_dim, ops::ScalarType::kBFloat16, stream)",
        seed=True, compile=True),
    "row_softmax": dict(
        spec="row_softmax.spec.json",
        original="ops::launch_row_softmax({out}, {in}, (int)rows, (int)cols, "
        "ops::ScalarType::kFloat32, stream)",
        compile=True),
    "block_reduce": dict(
        spec="block_reduce.spec.json",
        original="ops::launch_block_reduce((const float *){in}, (float *){out}, (float *){block_sums}, "
        "(unsigned int *){retire_count}, n, stream)",
        shared={"block_sums", "retire_count"}, compile=True),
    "rotary_embedding": dict(
        spec="rotary_embedding.spec.json",
        original="ops::launch_rotary_embedding((const int64_t *){positions}, {query}, {key}, "
        "{cos_sin_cache}, (int)num_tokens, (int)rot_dim, (int64_t)(num_heads * head_size), "
        "(int64_t)(num_kv_heads * head_size), (int)num_heads, (int)num_kv_heads, (int)head_size, "
        "ops::ScalarType::kBFloat16, stream)",
        shared={"cos_sin_cache"}, compile=False),
    "per_token_group_quant_8bit": dict(
        spec="per_token_group_quant_8bit.spec.json",
        original="ops::launch_per_token_group_quant_8bit({input}, {output_q}, (float *){output_s}, "
        "(int)num_tokens, (int)hidden, (int)group_size, 1e-10f, ops::ScalarType::kBFloat16, "
        "ops::QuantType::kInt8, stream)",
        compile=False),
    "tiled_transpose": dict(
        spec="tiled_transpose.spec.json",
        original="ops::launch_tiled_transpose((float *){out}, (const float *){in}, (int)rows, "
        "(int)cols, stream)",
        compile=False),
}
ORDER = ["silu_and_mul", "fused_add_rmsnorm", "merge_attn_states_lse", "row_softmax",
         "block_reduce", "rotary_embedding", "per_token_group_quant_8bit", "tiled_transpose"]
assert set(ORDER) == set(KERNELS)


def spec_path(name):
    return os.path.join(EXAMPLES, KERNELS[name]["spec"])


def load_spec(name):
    """The example's spec as ktune resolves it (ktune_outputs.ResolvedSpec)."""
    return ktune_outputs.resolve_spec(spec_path(name))


def spec_shapes(spec, quick):
    """The spec's shapes in table order: its list as given, else the product
    of its dims with the first dim varying fastest; each a dict in the spec's
    dim order."""
    shapes = spec.shapes
    if not spec.shapes_listed:
        index = {d: {v: i for i, v in enumerate(vals)} for d, vals in spec.dim_values.items()}
        shapes = sorted(shapes, key=lambda s: tuple(index[d][s[d]] for d in reversed(spec.dims)))
    if quick:
        # Two shapes: the smallest and a large one (the first dim at 4096 or
        # more), other dims at their first value; for a shape list, its
        # first and middle entries.
        if spec.shapes_listed:
            return [shapes[0], shapes[len(shapes) // 2]] if len(shapes) > 1 else shapes
        first = spec.dims[0]
        others = {d: spec.dim_values[d][0] for d in spec.dims[1:]}
        cands = sorted((s for s in shapes if all(s[d] == v for d, v in others.items())), key=lambda s: s[first])
        pick = cands[:1]
        large = [s for s in cands[1:] if s[first] >= 4096]
        if large:
            pick.append(large[0])
        shapes = pick
    return shapes


def shape_label(shape):
    return ",".join(f"{k}={v}" for k, v in shape.items())
