//! GDL (KIF, GDL-II) front-end: reader, validation, grounding, lowering to RG.
