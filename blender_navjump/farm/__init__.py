"""Farm runners for batch bakes: an Open Job Description task front end and a Dask driver.

Nothing here imports bpy at module level: the report merge (:mod:`.report`) and the file
lists (:mod:`.filelist`) are plain Python, :mod:`.openjd_task` imports the batch
command line only when it bakes, and :mod:`.dask_runner` needs ``dask[distributed]`` (the
``farm`` extra) only when it runs. The per-file and merged report formats are described
in ``docs/batch-report.md``.
"""
