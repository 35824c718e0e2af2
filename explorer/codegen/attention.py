"""The Attention page's "Show code": attentions, head statistics, rollout, norm-weighted
attention and the masked-LM lens with plain transformers."""

from __future__ import annotations

from explorer.codegen import RANDOM_LOAD, TRAINED_LOAD, literal, model_preamble
from explorer.model.ref import ModelRef

_EAGER = TRAINED_LOAD.removesuffix(")") + ', attn_implementation="eager")'
_RANDOM_EAGER = RANDOM_LOAD.removesuffix(")") + ', attn_implementation="eager")'


def attention_snippet(
    ref: ModelRef, text: str, pair: str | None = None, layer: int = 1, head: int = 1
) -> str:
    """A runnable program printing where each head's attention goes, for ``text`` (and an
    optional second segment ``pair``), and the attention of ``layer``/``head`` (from 1).

    Its namespace then holds ``attentions`` ``(layers, heads, tokens, tokens)``, ``tokens``,
    ``on_sep`` and ``on_cls`` ``(layers, heads)`` (mean share of a row), ``rollout``
    ``(layers, tokens, tokens)`` and ``weighted`` (norm-weighted attention of ``layer``,
    ``(heads, tokens, tokens)``; BERT-style layer names).
    """
    preamble = model_preamble(ref)
    load, eager = (RANDOM_LOAD, _RANDOM_EAGER) if ref.random else (TRAINED_LOAD, _EAGER)
    if load not in preamble:  # pragma: no cover - model_preamble changed
        raise ValueError(f"model_preamble no longer loads with {load}.")
    return (
        preamble.replace(load, eager)
        + "import numpy as np\n\n"
        + f"text = {literal(text)}\n"
        + f"pair = {literal(pair)}  # a second sentence, or None\n"
        + f"layer, head = {int(layer)}, {int(head)}  # counted from 1\n\n"
        "inputs = tokenizer(text, pair, truncation=True, return_tensors='pt')\n"
        "tokens = tokenizer.convert_ids_to_tokens(inputs['input_ids'][0].tolist())\n"
        "with torch.inference_mode():\n"
        "    output = model(**inputs, output_attentions=True, output_hidden_states=True)\n"
        "attentions = torch.cat(output.attentions).numpy()  # (layers, heads, tokens, tokens)\n"
        "print('attentions', attentions.shape, '- each row sums to 1')\n\n"
        "# share of each row's attention on [SEP] / [CLS], averaged over rows\n"
        "sep = [t == tokenizer.sep_token for t in tokens]\n"
        "cls = [t == tokenizer.cls_token for t in tokens]\n"
        "on_sep = attentions[..., sep].sum(-1).mean(-1)  # (layers, heads)\n"
        "on_cls = attentions[..., cls].sum(-1).mean(-1)\n"
        "# the headline: the special token that gets more, the two layers where it gets most\n"
        "shares = {tokenizer.cls_token: on_cls, tokenizer.sep_token: on_sep}\n"
        "first, second = sorted(shares, key=lambda name: -shares[name].mean())\n"
        "top = sorted(np.argsort(-shares[first].mean(1), kind='stable')[:2] + 1)\n"
        "print(f'{shares[first].mean():.0%} of all attention lands on {first} (most in layers '\n"
        "      f\"{' and '.join(map(str, top))}) and {shares[second].mean():.0%} on {second}\")\n"
        "# ... and the most positional head\n"
        "# (layers, heads): mean attention of a row to the token before / after it\n"
        "previous = np.diagonal(attentions, offset=-1, axis1=2, axis2=3).mean(-1)\n"
        "following = np.diagonal(attentions, offset=1, axis1=2, axis2=3).mean(-1)\n"
        "best = np.unravel_index(np.maximum(previous, following).argmax(), previous.shape)\n"
        "side, share = max([('previous', previous[best]), ('next', following[best])],\n"
        "                  key=lambda pair: pair[1])\n"
        "print(f'layer {best[0] + 1} head {best[1] + 1} sends {share:.0%} of its attention '\n"
        "      f'to the {side} token')\n\n"
        "# attention rollout (Abnar & Zuidema 2020): heads averaged, residual added\n"
        "n = len(tokens)\n"
        "mixed = (attentions.mean(1) + np.eye(n)) / 2\n"
        "flow, rollout = np.eye(n), []\n"
        "for matrix in mixed:\n"
        "    flow = matrix @ flow\n"
        "    rollout.append(flow)\n"
        "rollout = np.stack(rollout)  # (layers, tokens, tokens)\n\n"
        "# norm-weighted attention (Kobayashi et al. 2020): weight x ||value through W_O||\n"
        "block = model.base_model.encoder.layer[layer - 1].attention  # BERT / RoBERTa names\n"
        "heads = model.config.num_attention_heads\n"
        "with torch.inference_mode():\n"
        "    values = block.self.value(output.hidden_states[layer - 1][0])  # (tokens, hidden)\n"
        "    values = values.view(n, heads, -1).transpose(0, 1)  # (heads, tokens, head size)\n"
        "    w_o = block.output.dense.weight.T.view(heads, values.shape[-1], -1)\n"
        "    norms = torch.linalg.vector_norm(values @ w_o, dim=-1).numpy()  # (heads, tokens)\n"
        "weighted = attentions[layer - 1] * norms[:, None, :]  # (heads, tokens, tokens)\n\n"
        "print(f'layer {layer} head {head}: where each token looks most')\n"
        "for token, row in zip(tokens, attentions[layer - 1, head - 1]):\n"
        "    print(f'{token:>12} -> {tokens[row.argmax()]:<12} {row.max():.2f}')\n"
    )


def lens_snippet(ref: ModelRef, text: str, k: int = 5) -> str:
    """A runnable program printing, for every [MASK] in ``text``, the masked-LM head's top-``k``
    tokens at every layer (0 = embeddings). Its namespace holds ``positions`` (mask indices)
    and ``top`` ``{layer: [[(token, probability), ...] per mask]}``."""
    if ref.random:
        raise ValueError("Random weights have no trained masked-LM head for the lens to read.")
    preamble = model_preamble(ref).replace("AutoModel,", "AutoModelForMaskedLM,")
    preamble = preamble.replace(
        TRAINED_LOAD, TRAINED_LOAD.replace("AutoModel.", "AutoModelForMaskedLM.")
    )
    # the lens reads a typed [MASK] as the mask token, on purpose
    preamble = preamble.replace(", split_special_tokens=True)", ")")
    return (
        preamble + f"\ntext = {literal(text)}\n" + f"k = {int(k)}\n"
        "text = text.replace('[MASK]', tokenizer.mask_token)\n"
        "inputs = tokenizer(text, truncation=True, return_tensors='pt')\n"
        "ids = inputs['input_ids'][0]\n"
        "positions = (ids == tokenizer.mask_token_id).nonzero().flatten().tolist()\n"
        "# the masked-LM head: BERT keeps it in .cls, RoBERTa in .lm_head\n"
        "head = model.cls if hasattr(model, 'cls') else model.lm_head\n"
        "top = {}\n"
        "with torch.inference_mode():\n"
        "    output = model(**inputs, output_hidden_states=True)\n"
        "    for layer, state in enumerate(output.hidden_states):\n"
        "        probs, best = head(state[0, positions]).softmax(-1).topk(k)\n"
        "        top[layer] = [\n"
        "            list(zip(tokenizer.convert_ids_to_tokens(b.tolist()), p.tolist()))\n"
        "            for b, p in zip(best, probs)\n"
        "        ]\n"
        "        words = ', '.join(f'{t} {p:.2f}' for t, p in top[layer][0])\n"
        "        print(f'layer {layer:>2}: {words}')\n"
    )
