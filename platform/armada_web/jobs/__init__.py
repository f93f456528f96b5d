"""The machinery of the jobs the workers run: the queues and task names declared once (`queues`),
what the broker holds (`broker`), the live workers (`workers`), the one lease helper that makes a
job count once (`leases`), the order a worker takes its queues (`queue_order`) and the watch that
stops a worker without a sandbox (`sandbox_watch`). Below every app; imports no app."""
