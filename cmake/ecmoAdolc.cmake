# Shared by the build (CMakeLists.txt) and the installed package
# (ecmoConfig.cmake, component autodiff): after
# pkg_check_modules(ADOLC IMPORTED_TARGET adolc), drops the libraries of
# PkgConfig::ADOLC that cannot be found.
#
# Why: Debian 12's adolc.pc (libadolc-dev 2.7.2) lists -lboost_system, but
# libadolc.so does not need it (ldd shows no Boost) and libadolc-dev does not
# depend on libboost-system-dev; FindPkgConfig then puts the bare name
# "boost_system" on the link line, and every link fails. Libraries that were
# found are kept as they are.
function(ecmo_fix_adolc_target)
  if(NOT TARGET PkgConfig::ADOLC)
    return()
  endif()
  get_target_property(libs PkgConfig::ADOLC INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    return()
  endif()
  set(kept)
  foreach(lib IN LISTS libs)
    if(IS_ABSOLUTE "${lib}" OR lib MATCHES "^-" OR lib STREQUAL "m")
      list(APPEND kept "${lib}")
    else()
      find_library(_ecmo_adolc_dep_${lib} NAMES ${lib})
      if(_ecmo_adolc_dep_${lib})
        list(APPEND kept "${lib}")
      endif()
    endif()
  endforeach()
  set_property(TARGET PkgConfig::ADOLC PROPERTY INTERFACE_LINK_LIBRARIES "${kept}")
endfunction()
