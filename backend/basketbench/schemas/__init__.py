"""Response shapes that more than one domain shows: pagination and errors (common) and
references to a configuration, machine, codec set, build or worker tag (refs). Each
domain's own shapes live in its schemas module."""
