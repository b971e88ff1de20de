"""Fine-tuning and the models it starts from: the official recipes (`recipes`), fine-tuning on the
Hugging Face Trainer (`fine_tuning`, with the official trainer's parts: `official_trainer`), the
model registry and model ids (`checkpoints`), the offline stand-in (`tiny_model`), the speed
switches (`speed`) and a run's GPU (`devices`)."""
