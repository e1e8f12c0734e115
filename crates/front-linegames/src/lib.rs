//! LineGames (.lg) front-end: parser and lowering through HRG.
