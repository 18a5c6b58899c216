"""transformers, unchanged, on tinytorch: GPT-2 and Llama built from a config (no weights to download), three
AdamW steps and greedy ``generate``, then ``Trainer`` for one epoch on a small made-up dataset, against PyTorch
running the same transformers. At import transformers records every ``nn.init`` function, registers its output
classes with ``utils._pytree`` and imports flex attention's module where its version checks expect it."""
from __future__ import annotations

import numpy as np

from _ecosystem import run_on_pytorch, run_on_tinytorch

MODULES = ("transformers", "accelerate", "tokenizers", "huggingface_hub", "safetensors", "regex")

CAUSAL_LMS = """
    import numpy as np
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    res = {}
    ids = torch.from_numpy(np.random.default_rng(0).integers(3, 64, (2, 12)))
    configs = {"gpt2": lambda: GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=4,
                                                          bos_token_id=1, eos_token_id=2)),
               "llama": lambda: LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64,
                                                             num_hidden_layers=2, num_attention_heads=4,
                                                             num_key_value_heads=2, max_position_embeddings=32))}
    for name, make in configs.items():
        torch.manual_seed(0)
        model = make()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        losses = []
        for step in range(3):
            out = model(input_ids=ids, labels=ids)
            opt.zero_grad()
            out.loss.backward()
            opt.step()
            losses.append(float(out.loss))
        model.eval()
        gen = model.generate(ids[:1, :4], max_new_tokens=8, do_sample=False, pad_token_id=0, eos_token_id=None)
        with torch.no_grad():
            logits = model(ids[:1]).logits[0, -1]
        res[name] = {"losses": losses, "generated": gen.tolist(), "logits": logits.tolist(),
                     "attn": model.config._attn_implementation, "type": type(model).__name__}
    print(json.dumps(res))
"""

TRAINER = """
    import os, tempfile
    import numpy as np
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    class Tokens(torch.utils.data.Dataset):
        def __init__(self):
            self.ids = np.random.default_rng(1).integers(3, 64, (24, 10))

        def __len__(self):
            return len(self.ids)

        def __getitem__(self, i):
            x = torch.from_numpy(self.ids[i])
            return {"input_ids": x, "labels": x}

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=2, n_head=4,
                                       bos_token_id=1, eos_token_id=2))
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, num_train_epochs=1, per_device_train_batch_size=4, learning_rate=5e-3,
                                 logging_steps=2, save_strategy="no", report_to=[], seed=0, use_cpu=True,
                                 dataloader_num_workers=0, disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=Tokens(), eval_dataset=Tokens())
        result = trainer.train()
        metrics = trainer.evaluate()
    logged = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    print(json.dumps({"train_loss": result.training_loss, "steps": result.global_step, "logged": logged,
                      "eval_loss": metrics["eval_loss"]}))
"""


def _close(ours, theirs, rtol, atol=1e-6):
    np.testing.assert_allclose(np.array(ours, dtype=float), np.array(theirs, dtype=float), rtol=rtol, atol=atol)


def test_gpt2_and_llama_from_config_train_and_generate():
    ours = run_on_tinytorch(CAUSAL_LMS, MODULES)
    assert ours["gpt2"]["type"] == "GPT2LMHeadModel" and ours["llama"]["type"] == "LlamaForCausalLM"
    assert {r["attn"] for r in ours.values()} == {"sdpa"}  # scaled_dot_product_attention, as on PyTorch's CPU
    theirs = run_on_pytorch(CAUSAL_LMS, MODULES)
    for name, r in ours.items():
        assert r["generated"] == theirs[name]["generated"], name  # greedy: the same tokens
        _close(r["losses"], theirs[name]["losses"], 1e-6)
        # after three AdamW steps, whose first moves every weight by about the learning rate whatever the size of
        # its gradient, float32 rounding of the sums shows in the logits' last digits
        _close(r["logits"], theirs[name]["logits"], 1e-5, atol=2e-5)


def test_trainer_one_epoch():
    ours = run_on_tinytorch(TRAINER, MODULES)
    assert ours["steps"] == 6 and len(ours["logged"]) == 3
    theirs = run_on_pytorch(TRAINER, MODULES)
    assert ours["steps"] == theirs["steps"]
    # the Trainer's seeded shuffles, PyTorch's initial weights, AdamW with its linear schedule and gradient clipping
    _close([ours["train_loss"], ours["eval_loss"]] + ours["logged"],
           [theirs["train_loss"], theirs["eval_loss"]] + theirs["logged"], 1e-5)
