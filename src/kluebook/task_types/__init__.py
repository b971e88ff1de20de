"""What a task is, for every layer that names one: `Task` (`task`), a task.yaml validated by its
schema together with the task's name and folder, and `TaskModule` (`interface`), the functions a
task's code offers the shared code. They sit below the data, scoring and training layers, which
take a `Task`; the registry above them (`kluebook.tasks`) finds the task folders, makes their
`Task` values and reads and checks their code."""
