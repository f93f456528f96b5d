"""Operations: health checks, service tasks, operator commands."""
