"""The ground every stage stands on: data model, store, config, LLM client, views, prompts."""
