//! The `calls` table's columns, defined once ([`super::schema`] says what
//! each holds). The table is created from [`COLUMNS`], a row is written by
//! naming every column ([`insert_sql`] and a [`Values`] array, whose
//! length the compiler checks against [`COLUMNS`]), and each reader
//! declares the columns it selects with [`select!`]: the SELECT list as
//! SQL and one enum variant per column, which `rusqlite::Row::get` takes
//! in place of a position. No reader counts columns by hand.

/// The columns of `calls`, in order: name and SQLite type.
pub(super) const COLUMNS: [(&str, &str); 28] = [
    ("s_path", "BLOB NOT NULL"),
    ("s_id", "TEXT NOT NULL"),
    ("seq", "INTEGER NOT NULL"),
    ("agent", "TEXT NOT NULL"),
    ("thread", "INTEGER"),
    ("tool_use_id", "TEXT NOT NULL"),
    ("name", "TEXT NOT NULL"),
    ("name_folded", "TEXT NOT NULL"),
    ("kind", "TEXT NOT NULL"),
    ("resolved", "TEXT"),
    ("is_error", "INTEGER"),
    ("timestamp", "TEXT"),
    ("file_path", "TEXT"),
    ("file", "BLOB NOT NULL"),
    ("input_line", "INTEGER"),
    ("input_offset", "INTEGER"),
    ("input_len", "INTEGER"),
    ("output_line", "INTEGER"),
    ("output_offset", "INTEGER"),
    ("output_len", "INTEGER"),
    ("locator", "TEXT"),
    ("ts_ns", "INTEGER"),
    ("rows_ok", "INTEGER NOT NULL"),
    ("origin_agent_id", "TEXT"),
    ("origin_parent", "TEXT"),
    ("hooks", "TEXT"),
    ("hook_facts", "TEXT"),
    ("input_folded", "TEXT"),
];

/// One value per column of [`COLUMNS`], each named `:column`: what a row
/// insert binds. Its length is [`COLUMNS`]'s, so a column added to the table and
/// not to the writer does not compile.
pub(super) type Values<'a> = [(&'static str, &'a dyn rusqlite::ToSql); COLUMNS.len()];

/// `CREATE TABLE IF NOT EXISTS calls(…)` with its primary key.
pub(super) fn create_sql() -> String {
    let columns: Vec<String> = COLUMNS
        .iter()
        .map(|(name, ty)| format!("{name} {ty}"))
        .collect();
    format!(
        "CREATE TABLE IF NOT EXISTS calls({}, PRIMARY KEY(s_path, s_id, seq));",
        columns.join(", ")
    )
}

/// `INSERT INTO calls(…) VALUES (:s_path, …)`: every column, by name.
pub(super) fn insert_sql() -> String {
    let names: Vec<&str> = COLUMNS.iter().map(|(name, _)| *name).collect();
    let params: Vec<String> = names.iter().map(|n| format!(":{n}")).collect();
    format!(
        "INSERT INTO calls({}) VALUES ({})",
        names.join(", "),
        params.join(", ")
    )
}

/// Binds `values` (each named `:column`) to a statement from
/// [`insert_sql`] and runs it.
///
/// # Errors
/// SQLite's; a name that is not `:` and a column of [`COLUMNS`] is
/// rusqlite's `InvalidParameterName`.
pub(super) fn insert(
    stmt: &mut rusqlite::CachedStatement<'_>,
    values: &Values<'_>,
) -> rusqlite::Result<usize> {
    stmt.execute(values.as_slice())
}

/// Declares the columns one reader selects: a module holding `SQL`, the
/// SELECT list, and one `usize` constant per entry, its position in the
/// list (what `rusqlite::Row::get` takes). An entry is `Name = "column or
/// expression"`.
macro_rules! select {
    ($(#[$meta:meta])* $name:ident { $first:ident = $first_sql:literal $(, $col:ident = $sql:literal)* $(,)? }) => {
        $(#[$meta])*
        #[allow(non_snake_case, non_upper_case_globals, dead_code)]
        mod $name {
            /// The entries in order; their discriminants are the positions.
            enum Position {
                $first,
                $($col,)*
            }
            /// The SELECT list, in the entries' order.
            pub(super) const SQL: &str = concat!($first_sql $(, ", ", $sql)*);
            #[doc = concat!("The position of `", $first_sql, "`.")]
            pub(super) const $first: usize = Position::$first as usize;
            $(
                #[doc = concat!("The position of `", $sql, "`.")]
                pub(super) const $col: usize = Position::$col as usize;
            )*
        }
    };
}
pub(super) use select;

#[cfg(test)]
mod tests {
    use super::*;

    /// `:name`, for the life of the test.
    fn leak(name: &str) -> &'static str {
        Box::leak(format!(":{name}").into_boxed_str())
    }

    select!(
        /// Two columns and an expression, for the test.
        Probe {
            Seq = "seq",
            Name = "name",
            Folded = "input_folded IS NOT NULL",
        }
    );

    #[test]
    fn a_row_written_by_name_reads_back_by_variant() {
        let conn = rusqlite::Connection::open_in_memory().expect("memory");
        conn.execute_batch(&create_sql()).expect("create");
        let mut stmt = conn.prepare_cached(&insert_sql()).expect("insert");
        let none: Option<String> = None;
        let text = "t".to_string();
        let bytes = vec![0u8, 0xff];
        let one = 1i64;
        let mut values: Vec<(&'static str, &dyn rusqlite::ToSql)> = Vec::new();
        for (name, ty) in COLUMNS {
            let value: &dyn rusqlite::ToSql = match (name, ty) {
                ("name", _) => &"Bash",
                ("seq", _) => &7i64,
                (_, t) if t.starts_with("BLOB") => &bytes,
                (_, "TEXT NOT NULL") => &text,
                (_, "INTEGER NOT NULL") => &one,
                _ => &none,
            };
            values.push((leak(name), value));
        }
        let values: Values<'_> = values.try_into().unwrap_or_else(|_| panic!("all columns"));
        assert_eq!(insert(&mut stmt, &values).expect("row"), 1);
        assert_eq!(Probe::SQL, "seq, name, input_folded IS NOT NULL");
        let got = conn
            .query_row(&format!("SELECT {} FROM calls", Probe::SQL), [], |r| {
                Ok((
                    r.get::<_, i64>(Probe::Seq)?,
                    r.get::<_, String>(Probe::Name)?,
                    r.get::<_, bool>(Probe::Folded)?,
                ))
            })
            .expect("read");
        assert_eq!(got, (7, "Bash".to_string(), false));
    }

    #[test]
    fn an_unknown_column_name_is_an_error_not_a_null() {
        let conn = rusqlite::Connection::open_in_memory().expect("memory");
        conn.execute_batch(&create_sql()).expect("create");
        let mut stmt = conn.prepare_cached(&insert_sql()).expect("insert");
        let one = 1i64;
        let mut values: Vec<(&'static str, &dyn rusqlite::ToSql)> = COLUMNS
            .iter()
            .map(|(n, _)| (leak(n), &one as &dyn rusqlite::ToSql))
            .collect();
        values[3].0 = ":no_such_column";
        let values: Values<'_> = values.try_into().unwrap_or_else(|_| panic!("all columns"));
        assert!(matches!(
            insert(&mut stmt, &values),
            Err(rusqlite::Error::InvalidParameterName(n)) if n == ":no_such_column"
        ));
    }
}
