"""The course around the notebooks: :mod:`.assignments` (otter-grader assignments: generate, check,
grade) and :mod:`.notebooks` (execute every notebook in place)."""
