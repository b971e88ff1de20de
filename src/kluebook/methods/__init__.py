"""The methods of making a task's predictions, one interface (`interface.Method`) and one
module each (`fine_tuned`, `prompted`), found by name in `registry`."""
