"""Prompted evaluation: KLUE tasks answered by a language model, scored by the official metrics.

- `registry`: a registered task's template and prompting module (the contract they follow,
  `kluebook.tasks.prompt_items`, and the answer-reading rules, `kluebook.tasks.prompt_answers`, sit
  below the task folders, which import them);
- `checks`: what a prompted run is checked for before it starts (template, mode, shots,
  tokenizer), each problem in one line;
- `demonstrations`: the k demonstrations of a run, drawn from the train split by a seed;
- `render`: a prompt from the template, the demonstrations and the query; the template digest;
- `answering`: every item of a split answered (`rank` or `generate`) as prediction lines;
- `calibration`: a ranked run's ECE, Brier score and reliability bins;
- `corrections`: contextual calibration and PMI scoring of a ranked run, beside its own ranking;
- `local_lm`: backend A, a local transformers causal LM;
- `server_lm`: backend B, an OpenAI-compatible server, its answers in `response_cache`;
- `server_options`: how a server is asked (timeout, retries, concurrency, reask) and the API
  key, read from the environment;
- `served_model`: how a server is reached (its client, each call retried, errors in one line)
  and which model it serves (the identity `/v1/models` reports);
- `echo_scores`: rank scores from a server's echoed log-probabilities, by the rank rule;
- `local_server`: `transformers serve` over a local folder, a real server on the loopback;
- `tiny_causal_lm`: the offline stand-in, a tiny random Qwen3-family causal LM.
"""
