! A Fortran program calling SGEMM and ZGEMM with the normal link line
! against libgemmforge_blas.so, checked against MATMUL on small integers
! (exact in every precision). Prints "FORTRAN OK" or stops with status 1.
program fortran_gemm
  implicit none
  real :: a(5, 3), b(3, 4), c(6, 4), want(5, 4)
  complex(kind=8) :: za(3, 5), zb(4, 3), zc(5, 4), zwant(5, 4)
  integer :: i, j

  do j = 1, 3
    do i = 1, 5
      a(i, j) = real(mod(i * 3 + j, 7) - 3)
      za(j, i) = cmplx(mod(i + 2 * j, 5) - 2, mod(i * j, 3) - 1, kind=8)
    end do
    do i = 1, 4
      b(j, i) = real(mod(i + j * 5, 7) - 3)
      zb(i, j) = cmplx(mod(i * 2 + j, 5) - 2, mod(i + j, 4) - 2, kind=8)
    end do
  end do

  ! C(1:5, :) = 2 A B, with LDC = 6: row 6 must keep its NaN-free sentinel.
  c = 7.0
  call sgemm('n', 'N', 5, 4, 3, 2.0, a, 5, b, 3, 0.0, c, 6)
  want = 2.0 * matmul(a, b)
  if (any(c(1:5, :) /= want) .or. any(c(6, :) /= 7.0)) then
    print *, 'SGEMM wrong:', c
    stop 1
  end if

  ! ZC = ZA^H ZB^T + (1, 1) ZC
  zc = (1d0, -1d0)
  call zgemm('C', 't', 5, 4, 3, (1d0, 0d0), za, 3, zb, 4, (1d0, 1d0), zc, 5)
  zwant = matmul(conjg(transpose(za)), transpose(zb)) + (1d0, 1d0) * (1d0, -1d0)
  if (any(zc /= zwant)) then
    print *, 'ZGEMM wrong:', zc
    stop 1
  end if
  print '(a)', 'FORTRAN OK'
end program fortran_gemm
