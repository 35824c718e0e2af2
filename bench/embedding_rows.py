"""The table's rows for the corpus embedding's measurements (:mod:`bench.embedding`):
``throughput`` against sentence-transformers in float32 and bfloat16, ``gflops`` of the
forward pass against a large ``torch.mm``, and the peak ``memory`` of embedding a corpus with
every strategy kept (in a fresh process)."""

from __future__ import annotations

from bench.measure import Row, Sizes, run_child


def measure_throughput(sizes: Sizes) -> tuple[dict, list[Row]]:
    from bench.embedding import throughput

    data = throughput(sizes.texts, sizes.rounds)
    speed = data["texts_per_second"]
    where = f"{data['texts']:,} sentences, {data['threads']} threads, median of {data['rounds']}"
    rows = [
        Row(
            "Throughput vs sentence-transformers, float32",
            f"{data['ratio']:.2f}x ({speed['explorer']:.0f} vs "
            f"{speed['sentence_transformers']:.0f} texts/s; {where})",
            ">= 1.2x",
            data["ratio"] >= 1.2,
            data["ratio"],
        )
    ]
    if data["bfloat16_supported"]:
        rows.append(
            Row(
                "Throughput vs sentence-transformers, bfloat16",
                f"{data['ratio_bf16']:.2f}x ({speed['explorer_bf16']:.0f} texts/s; "
                f"{data['bf16_speedup_vs_float32']:.2f}x our float32)",
                ">= 1.6x",
                data["ratio_bf16"] >= 1.6,
                data["ratio_bf16"],
            )
        )
        deviation = data["bf16_max_cosine_deviation"]
        rows.append(
            Row(
                "bfloat16: largest cosine deviation from float32",
                f"{deviation:.1e} (every pooling, layer and text)",
                "<= 1e-3",
                deviation <= 1e-3,
                deviation,
            )
        )
    else:
        rows.append(Row("Throughput, bfloat16", "skipped: no AVX512-BF16/AMX on this CPU"))
    rows.append(
        Row(
            "Same vectors as sentence-transformers",
            f"largest difference {data['max_abs_diff_vs_sentence_transformers']:.1e} "
            "(mean pooling, last layer, normalized)",
        )
    )
    return data, rows


def measure_gflops(sizes: Sizes) -> tuple[dict, list[Row]]:
    from bench.embedding import gflops

    data = gflops(sizes.texts, sizes.rounds, sizes.matmul)
    fraction = data["fraction_of_peak"]
    rows = [
        Row(
            "Forward pass GFLOP/s vs float32 torch.mm peak",
            f"{100 * fraction:.0f} % ({data['forward_gflops']:.0f} of "
            f"{data['peak_gflops']:.0f} GFLOP/s, {data['matmul_size']}^2 mm; "
            f"padding {100 * data['padding']:.1f} %; {data['workers']} workers)",
            ">= 70 %",
            fraction >= 0.70,
            fraction,
        )
    ]
    if "fraction_of_peak_bf16" in data:
        rows.append(
            Row(
                "Forward pass GFLOP/s, bfloat16 (information)",
                f"{data['forward_gflops_bf16']:.0f} GFLOP/s = "
                f"{100 * data['fraction_of_peak_bf16']:.0f} % of bfloat16 mm "
                f"({data['peak_gflops_bf16']:.0f})",
            )
        )
    return data, rows


def measure_memory(sizes: Sizes) -> tuple[dict, list[Row]]:
    data = run_child("memory", str(sizes.memory_texts))
    over = data["over_baseline_mb"]
    limit = 1.5 * 1024
    rows = [
        Row(
            f"Peak RSS embedding {data['texts']:,} sentences, every strategy kept",
            f"+{over:.0f} MB over the loaded model ({data['baseline_mb']:.0f} MB); pooled "
            f"arrays {data['pooled_mb']:.0f} MB; {data['texts'] / data['seconds']:.0f} texts/s",
            "<= 1.5 GB",
            over <= limit,
            over,
        )
    ]
    return data, rows
