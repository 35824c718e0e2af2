"""Norm-weighted attention (Kobayashi et al. 2020) on every family explorer.attention knows:
``||alpha_hij f_h(x_j)||`` computed by hand from the weights of a tiny random model, with the
attention's real input ``x`` and output recorded by hooks, equals
``norm_weighted(attentions, value_norms(...))``; and the hand ``f_h`` is the true split of
the attention output (``sum_h alpha_h f_h + b_O`` is what the output projection returns)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from explorer.attention import _weights as attention

TINY = {"hidden_size": 32, "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 99}


def _bert():
    from transformers import BertConfig, BertModel

    model = BertModel(BertConfig(num_hidden_layers=2, **TINY))
    return model, [
        (lay.attention.self, lay.attention.self.value, lay.attention.output.dense)
        for lay in model.encoder.layer
    ]


def _mpnet():
    from transformers import MPNetConfig, MPNetModel

    model = MPNetModel(MPNetConfig(num_hidden_layers=2, **TINY))
    return model, [
        (lay.attention.attn, lay.attention.attn.v, lay.attention.attn.o)
        for lay in model.encoder.layer
    ]


def _deberta_v2():
    from transformers import DebertaV2Config, DebertaV2Model

    config = DebertaV2Config(
        num_hidden_layers=2,
        relative_attention=True,
        pos_att_type=["p2c", "c2p"],
        position_buckets=8,
        max_relative_positions=16,
        **TINY,
    )
    model = DebertaV2Model(config)
    return model, [
        (lay.attention.self, lay.attention.self.value_proj, lay.attention.output.dense)
        for lay in model.encoder.layer
    ]


def _albert():
    from transformers import AlbertConfig, AlbertModel

    config = AlbertConfig(embedding_size=16, num_hidden_layers=4, num_hidden_groups=2, **TINY)
    model = AlbertModel(config)
    groups = model.encoder.albert_layer_groups
    layers = [groups[i // 2].albert_layers[0] for i in range(4)]  # 4 layers, 2 shared groups
    return model, [(lay.attention, lay.attention.value, lay.attention.dense) for lay in layers]


def _albert_inner_groups():
    from transformers import AlbertModel

    """ALBERT whose two layer groups hold two inner layers each (``inner_group_num=2``): each
    of its 4 layers runs its group's two in turn, and transformers 5.23 records an attention
    map and a hidden state for every run (8 and 1 + 8), so each run gets its own value path."""
    model = AlbertModel(_albert_inner_config())
    groups = model.encoder.albert_layer_groups
    layers = [groups[i // 2].albert_layers[j] for i in range(4) for j in range(2)]  # run order
    return model, [(lay.attention, lay.attention.value, lay.attention.dense) for lay in layers]


def _albert_inner_config():
    from transformers import AlbertConfig

    return AlbertConfig(
        embedding_size=16, num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2, **TINY
    )


def _modernbert():
    from transformers import ModernBertConfig, ModernBertModel

    config = ModernBertConfig(num_hidden_layers=3, pad_token_id=0, **TINY)
    model = ModernBertModel(config)
    paths = []
    for lay in model.layers:  # the value rows of the fused Wqkv: (3, heads, head_dim), third
        width = lay.attn.Wo.in_features
        value = torch.nn.Linear(32, width, bias=lay.attn.Wqkv.bias is not None)
        value.weight = torch.nn.Parameter(lay.attn.Wqkv.weight[2 * width :])
        if value.bias is not None:
            value.bias = torch.nn.Parameter(lay.attn.Wqkv.bias[2 * width :])
        paths.append((lay.attn, value, lay.attn.Wo))
    return model, paths


FAMILIES = {
    "bert": _bert,
    "mpnet": _mpnet,
    "deberta-v2": _deberta_v2,
    "albert": _albert,
    "albert-inner-groups": _albert_inner_groups,
    "modernbert": _modernbert,
}


@pytest.mark.parametrize("family", FAMILIES)
def test_norm_weighted_equals_the_hand_computation(family):
    torch.manual_seed(0)
    model, parts = FAMILIES[family]()
    model.set_attn_implementation("eager")
    model.eval()
    inputs, outputs, hooks = [], [], []
    unique = {id(module): (module, output) for module, _, output in parts}  # ALBERT shares
    for module, output in unique.values():

        def record_input(m, args, kwargs):
            inputs.append((args[0] if args else kwargs["hidden_states"])[0].detach())

        hooks.append(module.register_forward_pre_hook(record_input, with_kwargs=True))
        hooks.append(output.register_forward_hook(lambda m, i, o: outputs.append(o[0].detach())))
    ids = torch.tensor([[1, 5, 17, 23, 42, 8, 61, 2]])
    try:
        with torch.inference_mode():
            result = model(input_ids=ids, output_attentions=True, output_hidden_states=True)
    finally:
        for hook in hooks:
            hook.remove()
    alphas = torch.cat(result.attentions).float()  # (layers, heads, tokens, tokens)
    states = torch.cat(result.hidden_states).float().numpy()
    heads = model.config.num_attention_heads
    assert len(inputs) == len(outputs) == len(parts) == alphas.shape[0]
    hand = []
    with torch.inference_mode():
        for layer, (_, value, output) in enumerate(parts):
            v = inputs[layer] @ value.weight.T
            if value.bias is not None:
                v = v + value.bias
            size = v.shape[-1] // heads
            f = torch.stack(  # f_h(x_j) = v_h(x_j) W_O^h: (heads, tokens, hidden)
                [
                    v[:, h * size : (h + 1) * size] @ output.weight[:, h * size : (h + 1) * size].T
                    for h in range(heads)
                ]
            )
            mixed = torch.einsum("hij,hjd->id", alphas[layer], f)
            if output.bias is not None:
                mixed = mixed + output.bias
            torch.testing.assert_close(mixed, outputs[layer], rtol=1e-4, atol=1e-5)
            hand.append(alphas[layer] * f.norm(dim=-1)[:, None, :])  # ||alpha_hij f_h(x_j)||
    encoder = SimpleNamespace(encoder=model, model_type=model.config.model_type)
    norms = attention.value_norms(encoder, states)
    weighted = attention.norm_weighted(alphas.numpy(), norms)
    np.testing.assert_allclose(weighted, torch.stack(hand).numpy(), rtol=1e-4, atol=1e-6)


def test_an_unknown_family_names_the_known_ones():
    model = SimpleNamespace(encoder=torch.nn.Linear(2, 2), model_type="t5")
    with pytest.raises(ValueError, match="MPNet, DeBERTa-v2/v3, ALBERT and ModernBERT"):
        attention.value_norms(model, np.zeros((2, 3, 2), np.float32))


def test_albert_with_inner_layers_counts_every_run_as_a_layer(tmp_path):
    # issue 33.7: Model.num_layers said 4 for the 8 attention maps and 1 + 8 hidden states
    from transformers import AlbertModel, BertTokenizer

    import explorer
    from explorer.attention import value_norms
    from explorer.model.attentions import attention_pass
    from tests.tiny_models import save_random

    config = _albert_inner_config()
    config.vocab_size = 30522
    model = explorer.load_model(save_random(tmp_path, config, AlbertModel, BertTokenizer))
    found = attention_pass(model, "The bank was closed on Sunday.")
    assert model.num_layers == 8 == len(found.attentions) == len(found.hidden_states) - 1
    assert model.hidden_states("The bank was closed on Sunday.").shape[0] == 9
    assert value_norms(model, found.hidden_states).shape[:2] == (8, 4)
