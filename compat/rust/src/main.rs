//! tokio-postgres against seqd with its default settings. Usage:
//! seqd-compat HOST PORT. Creates a sequence, calls nextval from several
//! tasks (all values distinct), uses currval and setval with typed
//! parameters (i32 where PostgreSQL infers integer), meets one error by its
//! SQLSTATE, and runs a transaction with a savepoint. Exits non-zero at the
//! first failure.

use std::collections::HashSet;
use tokio_postgres::{error::SqlState, Client, NoTls};

async fn connect(host: &str, port: &str) -> Client {
    let (client, conn) = tokio_postgres::connect(
        &format!("host={host} port={port} user=seqd dbname=seqd"),
        NoTls,
    )
    .await
    .expect("connect");
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            eprintln!("connection: {e}");
        }
    });
    client
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (host, port) = (args[1].clone(), args[2].clone());
    let name = "rust_s";
    let c = connect(&host, &port).await;
    c.batch_execute(&format!("create sequence {name}"))
        .await
        .expect("create");

    let mut tasks = Vec::new();
    for _ in 0..4 {
        let (h, p) = (host.clone(), port.clone());
        tasks.push(tokio::spawn(async move {
            let c = connect(&h, &p).await;
            let stmt = c
                .prepare("select nextval($1::text::regclass)")
                .await
                .expect("prepare");
            let mut out = Vec::new();
            for _ in 0..50 {
                let v: i64 = c.query_one(&stmt, &[&name]).await.expect("nextval").get(0);
                out.push(v);
            }
            out
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("task"));
    }
    let set: HashSet<i64> = all.iter().copied().collect();
    assert_eq!((all.len(), set.len()), (200, 200), "repeated values");

    // i32 where PostgreSQL infers integer: generate_series(1, $1).
    let rows = c
        .query(
            &format!("select nextval('{name}') from generate_series(1, $1)"),
            &[&5i32],
        )
        .await
        .expect("generate_series with an i32");
    assert_eq!(rows.len(), 5);
    let v: i64 = c
        .query_one("select setval($1::text::regclass, $2)", &[&name, &1000i64])
        .await
        .expect("setval")
        .get(0);
    assert_eq!(v, 1000);
    let row = c
        .query_one(&format!("select nextval('{name}'), currval('{name}')"), &[])
        .await
        .expect("nextval");
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (1001, 1001));
    let err = c
        .query_one("select nextval('rust_missing')", &[])
        .await
        .expect_err("no error");
    assert_eq!(err.code(), Some(&SqlState::UNDEFINED_TABLE));

    let mut c = c;
    let mut tx = c.transaction().await.expect("begin");
    tx.query_one(&format!("select nextval('{name}')"), &[])
        .await
        .expect("nextval in block");
    {
        let sp = tx.savepoint("a").await.expect("savepoint");
        let err = sp.query_one("select 1/0", &[]).await.expect_err("no error");
        assert_eq!(err.code(), Some(&SqlState::DIVISION_BY_ZERO));
        sp.rollback().await.expect("rollback to savepoint");
    }
    let v: i64 = tx
        .query_one(&format!("select nextval('{name}')"), &[])
        .await
        .expect("after savepoint")
        .get(0);
    assert_eq!(v, 1003);
    tx.commit().await.expect("commit");
    println!("tokio-postgres: ok");
}
