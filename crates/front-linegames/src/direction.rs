//! The ten directions of LineGames (the eight compass directions, `clockwise` and
//! `anticlockwise` around a ring): names, opposites, rotations and the
//! canonical order that fixes the direction table of boards without a base shape.

use std::fmt;

/// A direction. The declaration order is the canonical order: `north east south west`, the
/// four diagonals, then `clockwise anticlockwise`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    North,
    East,
    South,
    West,
    Northeast,
    Northwest,
    Southeast,
    Southwest,
    Clockwise,
    Anticlockwise,
}

/// The compass directions clockwise from north (rotating by 45° follows this cycle).
const CYCLE: [Dir; 8] = [
    Dir::North,
    Dir::Northeast,
    Dir::East,
    Dir::Southeast,
    Dir::South,
    Dir::Southwest,
    Dir::West,
    Dir::Northwest,
];

impl Dir {
    /// Every direction, in canonical order.
    pub const ALL: [Dir; 10] = [
        Dir::North,
        Dir::East,
        Dir::South,
        Dir::West,
        Dir::Northeast,
        Dir::Northwest,
        Dir::Southeast,
        Dir::Southwest,
        Dir::Clockwise,
        Dir::Anticlockwise,
    ];

    /// The eight compass directions, in canonical order.
    pub const COMPASS: &'static [Dir] = Dir::ALL.split_at(8).0;

    /// The position in canonical order.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The keyword naming the direction (also the name of its map in the generated HRG).
    pub fn name(self) -> &'static str {
        match self {
            Dir::North => "north",
            Dir::East => "east",
            Dir::South => "south",
            Dir::West => "west",
            Dir::Northeast => "northeast",
            Dir::Northwest => "northwest",
            Dir::Southeast => "southeast",
            Dir::Southwest => "southwest",
            Dir::Clockwise => "clockwise",
            Dir::Anticlockwise => "anticlockwise",
        }
    }

    /// The opposite direction.
    pub fn opposite(self) -> Dir {
        match self {
            Dir::North => Dir::South,
            Dir::East => Dir::West,
            Dir::South => Dir::North,
            Dir::West => Dir::East,
            Dir::Northeast => Dir::Southwest,
            Dir::Northwest => Dir::Southeast,
            Dir::Southeast => Dir::Northwest,
            Dir::Southwest => Dir::Northeast,
            Dir::Clockwise => Dir::Anticlockwise,
            Dir::Anticlockwise => Dir::Clockwise,
        }
    }

    /// A compass direction rotated clockwise by `steps` × 45° (negative: anticlockwise). The
    /// ring directions are returned unchanged.
    pub fn rotated(self, steps: i32) -> Dir {
        match CYCLE.iter().position(|&d| d == self) {
            Some(i) => CYCLE[(i as i32 + steps).rem_euclid(8) as usize],
            None => self,
        }
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Dir;

    #[test]
    fn opposites_are_involutions() {
        for d in Dir::ALL {
            assert_ne!(d.opposite(), d);
            assert_eq!(d.opposite().opposite(), d);
            assert_eq!(
                Dir::COMPASS.contains(&d),
                Dir::COMPASS.contains(&d.opposite())
            );
        }
    }

    #[test]
    fn rotations_follow_the_compass_cycle() {
        // A triangle to the `south` has rays southwest, south, southeast, and `across` is east.
        assert_eq!(Dir::South.rotated(1), Dir::Southwest);
        assert_eq!(Dir::South.rotated(-1), Dir::Southeast);
        assert_eq!(Dir::South.rotated(-2), Dir::East);
        assert_eq!(Dir::North.rotated(1), Dir::Northeast);
        assert_eq!(Dir::North.rotated(-2), Dir::West);
        assert_eq!(Dir::Northwest.rotated(1), Dir::North);
        for d in Dir::COMPASS {
            assert_eq!(d.rotated(4), d.opposite());
        }
    }
}
