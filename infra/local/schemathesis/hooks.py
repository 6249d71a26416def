# Schemathesis hooks (SCHEMATHESIS_HOOKS), loaded by test/integration/openapi-conformance.test.ts.
# The heatmap's `bounds` has the custom format `bbox` in the OpenAPI document: its grammar is a
# pattern, but its rules (ranges, west < east, south < north, at most 10,000 km2, not too long and
# thin) are not expressible in JSON Schema. Valid values are therefore generated here: boxes of up to
# 0.5 x 0.5 degrees (~3,000 km2) around Tanzania, written the ways the parser accepts.
import schemathesis
from hypothesis import strategies as st


@st.composite
def bounding_boxes(draw):
    west = draw(st.floats(min_value=29.0, max_value=40.0))
    south = draw(st.floats(min_value=-11.5, max_value=-1.0))
    width = draw(st.floats(min_value=0.001, max_value=0.5))
    height = draw(st.floats(min_value=0.001, max_value=0.5))
    digits = draw(st.integers(min_value=3, max_value=6))
    return ",".join(f"{value:.{digits}f}" for value in (west, south, west + width, south + height))


schemathesis.openapi.format("bbox", bounding_boxes())
