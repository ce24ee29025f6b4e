"""The course around the notebooks: :mod:`.assignments` (otter-grader assignments: generate, check,
grade), :mod:`.student_copy` (what students get) and :mod:`.notebooks` (execute every notebook in place)."""
