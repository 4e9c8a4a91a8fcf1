"""Mask and image operations on numpy arrays (no Qt; imports only core).

Dabs, grow/shrink/blur, align to 16, fill (grey, blur, telea / ns, border extension), the
only-masked region, `frame.py` (context area and canvas expansion), `prepare.py` and
`prepare_record.py` (`PrepareOptions` owns its defaults), soft composite and `SoftCompositor`,
`color_match` / `drift` / `seam` (applied at composite; colour match is off by default:
bench/inpaint_quality.py section (a) does not hold on every case), `engine_cells` (the engine's
16-px mask), `soft_mask`, `source_crop`, `png_params` (A1111 `parameters` + Stepwise JSON
chunks).

`mask_ops.BINARY_THRESHOLD` is the one mask threshold (a uint8 mask repaints from 128).
"""
