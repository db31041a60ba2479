"""The audit job at cluster scale: the driver plans passes of Ray tasks that write the run's parts."""
